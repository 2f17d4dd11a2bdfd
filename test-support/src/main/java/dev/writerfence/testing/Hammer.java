package dev.writerfence.testing;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.retry.BusyRetryPolicy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads that enter one fenced critical section again and again for a while, through the
 * high-level {@link WriterFence#call}, each section recorded in {@link CriticalSections}. Used in
 * the test JVM and in forked writer processes alike.
 */
public final class Hammer {
  /** Short, frequent retries: contention is the point, a busy outcome is just counted. */
  public static final BusyRetryPolicy RETRY =
      new BusyRetryPolicy(20, Duration.ofMillis(1), 1.5, Duration.ofMillis(10), 0.5);

  /**
   * What the threads did.
   *
   * @param sections critical sections run
   * @param busy fenced calls that stayed busy through every attempt
   * @param failures anything else that went wrong
   */
  public record Outcome(int sections, int busy, List<Throwable> failures) {}

  private Hammer() {}

  /**
   * How long past {@code duration} a thread that has not yet run a section keeps trying before it
   * gives up and reports a failure: every writer is served, however loaded the machine.
   */
  public static final Duration SERVED_BY = Duration.ofMinutes(2);

  /**
   * Runs {@code threads} threads until {@code duration} has passed and each of them has run at
   * least one critical section, and waits for them. A thread that has run none {@link #SERVED_BY}
   * after {@code duration} stops and is reported in {@link Outcome#failures()}. The number of
   * sections depends on the machine's speed and load: assert on the record, not on a count.
   *
   * @param fence the fence to enter through
   * @param fenceName the one fence name every thread contends for
   * @param record where each section is recorded
   * @param writer names the writer in the record, suffixed with the thread number
   * @param threads how many threads
   * @param duration how long they keep entering
   * @return what they did
   */
  public static Outcome run(
      WriterFence fence,
      String fenceName,
      CriticalSections record,
      String writer,
      int threads,
      Duration duration)
      throws InterruptedException {
    FenceRequest request =
        FenceRequest.builder(fenceName)
            .holderLabel(writer)
            .ttl(Duration.ofSeconds(30))
            .retryPolicy(RETRY)
            .build();
    long deadline = System.nanoTime() + duration.toNanos();
    long servedBy = deadline + SERVED_BY.toNanos();
    AtomicInteger sections = new AtomicInteger();
    AtomicInteger busy = new AtomicInteger();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String who = writer + "/" + t;
      Thread thread =
          new Thread(
              () -> {
                try (CriticalSections.Recorder recorder = record.recorder()) {
                  int mine = 0;
                  while (System.nanoTime() < deadline || mine == 0) {
                    if (System.nanoTime() > servedBy) {
                      throw new AssertionError(who + " ran no critical section");
                    }
                    try {
                      fence.call(request, () -> section(recorder, who, fenceName));
                      sections.incrementAndGet();
                      mine++;
                    } catch (WriterFenceBusyException e) {
                      busy.incrementAndGet();
                    }
                  }
                } catch (Exception | AssertionError e) {
                  failures.add(e);
                }
              },
              "hammer-" + who);
      thread.start();
      running.add(thread);
    }
    for (Thread thread : running) {
      thread.join();
    }
    return new Outcome(sections.get(), busy.get(), List.copyOf(failures));
  }

  private static Void section(CriticalSections.Recorder recorder, String who, String fenceName)
      throws SQLException {
    long token =
        WriterFence.current(fenceName)
            .orElseThrow(() -> new AssertionError("no lease inside the fenced call"))
            .fencingToken();
    recorder.section(who, token);
    return null;
  }
}
