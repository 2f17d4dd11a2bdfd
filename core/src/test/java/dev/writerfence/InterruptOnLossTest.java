package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The opt-in that interrupts a fenced call's thread when its lease is lost ({@link
 * FenceRequest.Builder#interruptOnLoss}), against the real database: leases are lost by taking
 * their row over in SQL, or by running out their TTL with renewal off.
 */
class InterruptOnLossTest extends FenceTestSupport {

  private static WriterFence quickRenewal() {
    return fence(DB.dataSource()).renewInterval(Duration.ofMillis(200)).build();
  }

  private FenceRequest interrupting(String label) {
    return FenceRequest.builder(name).holderLabel(label).interruptOnLoss(true).build();
  }

  /** Another holder takes the row over, once the body runs: the next renewal finds it lost. */
  private void takeOverWhen(CountDownLatch bodyRuns) throws InterruptedException {
    assertThat(bodyRuns.await(20, TimeUnit.SECONDS)).as("the body runs").isTrue();
    takeOver();
  }

  @Test
  void aBodyAsleepIsInterruptedOnLossAndTheCallEndsInFenceLostException() throws Exception {
    WriterFence fence = quickRenewal();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch runs = new CountDownLatch(1);
      Future<Throwable> outcome =
          caller.submit(
              () -> {
                Throwable t =
                    catchThrowable(
                        () ->
                            fence.run(
                                interrupting("sleeper"),
                                () -> {
                                  runs.countDown();
                                  Thread.sleep(TimeUnit.SECONDS.toMillis(60));
                                }));
                assertThat(Thread.currentThread().isInterrupted())
                    .as("the fence's interrupt is cleared as the call ends")
                    .isFalse();
                return t;
              });
      takeOverWhen(runs);

      Throwable thrown = outcome.get(30, TimeUnit.SECONDS);
      assertThat(thrown).isInstanceOf(FenceLostException.class);
      FenceLostException lost = (FenceLostException) thrown;
      assertThat(lost.fenceName()).isEqualTo(name);
      assertThat(lost.reason()).contains("taken over").contains("while the fenced call ran");
      assertThat(lost).hasCauseInstanceOf(InterruptedException.class);
      assertThat(sql.state(name)).as("the other holder's row is not freed").isEqualTo("held");
    } finally {
      caller.shutdownNow();
      fence.close();
    }
  }

  @Test
  void aBodyTakingFromAQueueIsInterruptedOnLoss() throws Exception {
    WriterFence fence = quickRenewal();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch runs = new CountDownLatch(1);
      BlockingQueue<String> nothingComes = new ArrayBlockingQueue<>(1);
      Future<Throwable> outcome =
          caller.submit(
              () ->
                  catchThrowable(
                      () ->
                          fence.callWithLease(
                              interrupting("taker"),
                              lease -> {
                                runs.countDown();
                                try {
                                  return nothingComes.take();
                                } catch (InterruptedException e) {
                                  // The body wraps it, as code that may not throw it does.
                                  throw new IllegalStateException("interrupted", e);
                                }
                              })));
      takeOverWhen(runs);

      Throwable thrown = outcome.get(30, TimeUnit.SECONDS);
      assertThat(thrown)
          .isInstanceOf(FenceLostException.class)
          .hasCauseInstanceOf(IllegalStateException.class)
          .hasRootCauseInstanceOf(InterruptedException.class);
    } finally {
      caller.shutdownNow();
      fence.close();
    }
  }

  @Test
  void withoutTheOptInTheBodyIsNotInterruptedAndItsCallReturns() throws Exception {
    WriterFence fence = quickRenewal();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch runs = new CountDownLatch(1);
      AtomicBoolean interrupted = new AtomicBoolean();
      Future<String> outcome =
          caller.submit(
              () ->
                  fence.callWithLease(
                      request("not-interrupted"),
                      lease -> {
                        runs.countDown();
                        try {
                          // Sleeps in short steps until the loss is seen, then 1 s more.
                          while (lease.isValid()) {
                            Thread.sleep(50);
                          }
                          Thread.sleep(1000);
                        } catch (InterruptedException e) {
                          interrupted.set(true);
                        }
                        return "returned";
                      }));
      takeOverWhen(runs);

      assertThat(outcome.get(30, TimeUnit.SECONDS)).isEqualTo("returned");
      assertThat(interrupted).as("interrupted without the opt-in").isFalse();
    } finally {
      caller.shutdownNow();
      fence.close();
    }
  }

  @Test
  void aNestedCallThatJoinsAndOptsInIsInterruptedOnTheLossOfTheOuterHold() throws Exception {
    WriterFence fence = quickRenewal();
    ExecutorService caller = Executors.newSingleThreadExecutor();
    try {
      CountDownLatch runs = new CountDownLatch(1);
      Future<Throwable> outcome =
          caller.submit(
              () ->
                  catchThrowable(
                      () ->
                          fence.run(
                              request("outer"),
                              () ->
                                  fence.run(
                                      interrupting("inner"),
                                      () -> {
                                        runs.countDown();
                                        Thread.sleep(TimeUnit.SECONDS.toMillis(60));
                                      }))));
      takeOverWhen(runs);

      assertThat(outcome.get(30, TimeUnit.SECONDS))
          .isInstanceOf(FenceLostException.class)
          .hasCauseInstanceOf(InterruptedException.class);
      assertThat(FencingTokens.counter(sql.fencingToken(name)))
          .as("the inner call joined: one acquire")
          .isEqualTo(1);
    } finally {
      caller.shutdownNow();
      fence.close();
    }
  }

  /**
   * Calls in a row on a few threads, each lease running out its 1 s TTL (renewal off) about when
   * its call ends, a little before or after: the loss races the call's end. Whichever wins, a call
   * ends either with its result or in {@link FenceLostException}, and its thread is never
   * interrupted once the call has ended (a later sleep of that thread would see it).
   */
  @Test
  void aThreadWhoseCallEndedIsNeverInterrupted() throws Exception {
    WriterFence fence = fence(DB.dataSource()).withoutRenewal().build();
    int threads = 3;
    int callsPerThread = 6;
    AtomicInteger returned = new AtomicInteger();
    AtomicInteger lost = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<List<String>>> runs = new ArrayList<>();
      for (int n = 0; n < threads; n++) {
        String fenceName = name + "-" + n;
        runs.add(
            pool.submit(
                () -> {
                  List<String> leaked = new ArrayList<>();
                  FenceRequest r =
                      FenceRequest.builder(fenceName)
                          .holderLabel("racer")
                          .ttl(Duration.ofSeconds(1))
                          .interruptOnLoss(true)
                          .build();
                  for (int i = 0; i < callsPerThread; i++) {
                    long aroundDeadline =
                        TimeUnit.MILLISECONDS.toNanos(ThreadLocalRandom.current().nextInt(-40, 40));
                    Throwable t =
                        catchThrowable(
                            () ->
                                fence.runWithLease(
                                    r,
                                    lease -> {
                                      HeldLease held = HeldLease.of(lease);
                                      // Busy, not blocked: an interrupt only sets the flag.
                                      while (held.nanosLeft() > aroundDeadline) {
                                        Thread.onSpinWait();
                                      }
                                    }));
                    if (t == null) {
                      returned.incrementAndGet();
                    } else if (t instanceof FenceLostException) {
                      lost.incrementAndGet();
                    } else {
                      throw new AssertionError("call " + i + " ended in " + t, t);
                    }
                    if (Thread.interrupted()) {
                      leaked.add("interrupted right after call " + i);
                    }
                    try {
                      Thread.sleep(100); // an interrupt sent after the call would land here
                    } catch (InterruptedException e) {
                      leaked.add("interrupted 100 ms after call " + i);
                    }
                  }
                  return leaked;
                }));
      }
      for (Future<List<String>> run : runs) {
        assertThat(run.get(120, TimeUnit.SECONDS)).as("interrupts after a call ended").isEmpty();
      }
      System.out.printf(
          "loss raced against the call's end: %d calls returned, %d ended lost%n",
          returned.get(), lost.get());
      assertThat(returned.get() + lost.get()).isEqualTo(threads * callsPerThread);
    } finally {
      pool.shutdownNow();
      fence.close();
    }
  }
}
