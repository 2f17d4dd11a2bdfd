package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The per-name turn among one fence's threads, without a database. */
class LocalTurnsTest {
  private static final long LONG_WAIT = TimeUnit.SECONDS.toNanos(30);

  // No store: these turns never poll a queue, so the store is never asked.
  private final LocalTurns turns = new LocalTurns(null, WriterFence.DEFAULT_QUEUE_LAPSE);

  @Test
  void aSecondTakerWithoutWaitGetsNothingWhileTheTurnIsHeld() throws Exception {
    LocalTurns.Turn first = turns.take("bucket-a", 0);

    assertThat(first).isNotNull();
    assertThat(turns.take("bucket-a", 0)).isNull();
    assertThat(turns.take("bucket-b", 0)).as("another name has its own turn").isNotNull();
  }

  @Test
  void aTimedWaitEndsEmptyWhenTheTurnIsKept() throws Exception {
    Thread holder = new Thread(() -> takeNow("bucket-a"));
    holder.start();
    holder.join();

    long start = System.nanoTime();
    assertThat(turns.take("bucket-a", TimeUnit.MILLISECONDS.toNanos(50))).isNull();
    assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
  }

  @Test
  void giveBackHandsTheTurnToWaitersInTheOrderTheyCame() throws Exception {
    LocalTurns.Turn holder = turns.take("bucket-a", 0);
    List<Integer> order = new CopyOnWriteArrayList<>();
    Thread[] waiters = new Thread[4];
    for (int i = 0; i < waiters.length; i++) {
      int id = i;
      waiters[i] =
          new Thread(
              () -> {
                try {
                  LocalTurns.Turn turn = turns.take("bucket-a", LONG_WAIT);
                  order.add(id);
                  turn.giveBack();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      waiters[i].start();
      awaitTimedWaiting(waiters[i]); // queued before the next one starts
    }

    holder.giveBack();
    for (Thread waiter : waiters) {
      waiter.join(TimeUnit.SECONDS.toMillis(30));
    }

    assertThat(order).containsExactly(0, 1, 2, 3);
    assertThat(turns.activeNames()).as("no entry left for a name nobody holds").isZero();
  }

  @Test
  void aTurnGivenBackTwiceFreesOneTurnOnly() throws Exception {
    LocalTurns.Turn turn = turns.take("bucket-a", 0);
    turn.giveBack();
    turn.giveBack();

    assertThat(turns.take("bucket-a", 0)).isNotNull();
    assertThat(turns.take("bucket-a", 0)).as("the second give-back added no turn").isNull();
  }

  @Test
  void aTurnIsGivenBackOnAnotherThread() throws Exception {
    LocalTurns.Turn turn = turns.take("bucket-a", 0);
    Thread other = new Thread(turn::giveBack);
    other.start();
    other.join();

    assertThat(turns.take("bucket-a", 0)).isNotNull();
  }

  @Test
  void anInterruptedWaitTakesNoTurnAndLeavesNoEntry() throws Exception {
    LocalTurns.Turn holder = turns.take("bucket-a", 0);
    CountDownLatch interrupted = new CountDownLatch(1);
    Thread waiter =
        new Thread(
            () -> {
              try {
                turns.take("bucket-a", LONG_WAIT);
              } catch (InterruptedException e) {
                interrupted.countDown();
              }
            });
    waiter.start();
    awaitTimedWaiting(waiter);
    waiter.interrupt();

    assertThat(interrupted.await(30, TimeUnit.SECONDS)).isTrue();
    holder.giveBack();
    assertThat(turns.activeNames()).isZero();
  }

  @Test
  void negativeWaitMeansNoWait() throws Exception {
    turns.take("bucket-a", 0);

    assertThat(turns.take("bucket-a", -1)).isNull();
  }

  /** Waits until {@code thread} is parked in a timed wait (for a turn, here). */
  static void awaitTimedWaiting(Thread thread) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> thread.getState() == Thread.State.TIMED_WAITING);
  }

  private void takeNow(String fenceName) {
    try {
      turns.take(fenceName, 0);
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
