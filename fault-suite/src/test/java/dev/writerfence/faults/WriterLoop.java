package dev.writerfence.faults;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.testing.CriticalSections;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writer threads that enter one fenced critical section again and again until stopped, recording
 * every section in a {@link CriticalSections}. Unlike the core suite's {@code Hammer}, a thread
 * goes on after {@link WriterFenceUnavailableException}: under a fault the database is unreachable
 * for a while, and writers keep trying as real ones would. Used in the test JVM and in {@link
 * FaultWriter} processes.
 */
final class WriterLoop {
  /** Short, frequent retries: contention is the point, a busy outcome is just counted. */
  static final BusyRetryPolicy RETRY =
      new BusyRetryPolicy(20, Duration.ofMillis(2), 1.5, Duration.ofMillis(20), 0.5);

  /** After an unavailable answer a thread waits this long before its next attempt. */
  private static final long UNAVAILABLE_PAUSE_MILLIS = 25;

  /**
   * What the threads did.
   *
   * @param sections critical sections run and recorded
   * @param busy calls that stayed busy through every attempt
   * @param unavailable calls answered {@link WriterFenceUnavailableException}
   * @param failures anything else (a broken recording, an unexpected exception)
   */
  record Outcome(int sections, int busy, int unavailable, List<Throwable> failures) {
    String line() {
      return "done " + sections + " " + busy + " " + unavailable + " " + failures.size();
    }
  }

  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicInteger sections = new AtomicInteger();
  private final AtomicInteger busy = new AtomicInteger();
  private final AtomicInteger unavailable = new AtomicInteger();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final List<Thread> threads = new ArrayList<>();

  /**
   * Starts the threads.
   *
   * @param fence the fence to enter through
   * @param fenceName the one name every thread contends for
   * @param ttl the lease TTL of each call
   * @param log where each section is recorded
   * @param writer names the writer in the record, suffixed with the thread number
   * @param count how many threads
   * @param maxHoldMillis each section lasts a random 0..this many milliseconds
   */
  WriterLoop(
      WriterFence fence,
      String fenceName,
      Duration ttl,
      CriticalSections log,
      String writer,
      int count,
      int maxHoldMillis) {
    FenceRequest request =
        FenceRequest.builder(fenceName).holderLabel(writer).ttl(ttl).retryPolicy(RETRY).build();
    for (int t = 0; t < count; t++) {
      String who = writer + "/" + t;
      Thread thread =
          new Thread(() -> loop(fence, request, log, who, maxHoldMillis), "writer-" + who);
      thread.setDaemon(true);
      threads.add(thread);
    }
    threads.forEach(Thread::start);
  }

  private void loop(
      WriterFence fence,
      FenceRequest request,
      CriticalSections log,
      String who,
      int maxHoldMillis) {
    try (CriticalSections.Recorder recorder = log.recorder()) {
      while (!stop.get()) {
        try {
          fence.call(
              request,
              () -> {
                long token =
                    WriterFence.current(request.fenceName())
                        .orElseThrow(() -> new AssertionError("no lease inside the fenced call"))
                        .fencingToken();
                long id = recorder.enter(who, token);
                if (maxHoldMillis > 0) {
                  Thread.sleep(ThreadLocalRandom.current().nextInt(maxHoldMillis + 1));
                }
                recorder.exit(id);
                return null;
              });
          sections.incrementAndGet();
        } catch (WriterFenceBusyException e) {
          busy.incrementAndGet();
        } catch (WriterFenceUnavailableException e) {
          unavailable.incrementAndGet();
          Thread.sleep(UNAVAILABLE_PAUSE_MILLIS);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception | AssertionError e) {
      failures.add(e);
    }
  }

  /**
   * @return critical sections finished so far
   */
  int sectionsSoFar() {
    return sections.get();
  }

  /**
   * Stops the threads after their current call and waits for them.
   *
   * @return what they did
   */
  Outcome stop() throws InterruptedException {
    stop.set(true);
    for (Thread thread : threads) {
      thread.join(Duration.ofSeconds(60).toMillis());
      if (thread.isAlive()) {
        failures.add(new AssertionError(thread.getName() + " did not stop within 60 s"));
      }
    }
    return new Outcome(sections.get(), busy.get(), unavailable.get(), List.copyOf(failures));
  }
}
