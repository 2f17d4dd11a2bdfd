package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.spi.ReleaseSignal;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** How a queued wait spaces its polls, on a clock the test moves. */
class QueuePollsTest {
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  private final QueuePolls polls =
      new QueuePolls(Duration.ofMillis(10), Duration.ofSeconds(5), null);

  @Test
  void theFrontPollsEveryInterval() {
    QueuePolls.Progress wait = polls.new Progress();

    assertThat(wait.waitMillis(1, 0)).isEqualTo(10);
    assertThat(wait.waitMillis(2, 5 * MS)).isEqualTo(10);
    assertThat(wait.waitMillis(0, 9 * MS)).as("not queued yet").isEqualTo(10);
  }

  @Test
  void aWaiterFarBackPollsSoonerAsTheQueueMovesFast() {
    QueuePolls.Progress wait = polls.new Progress();

    assertThat(wait.waitMillis(60, 0)).as("one interval a turn, at first").isEqualTo(580);
    // 30 turns in 600 ms: 20 ms a turn, 28 turns to the front, half of that time
    assertThat(wait.waitMillis(30, 600 * MS)).isEqualTo(280);
    // 40 turns in 1 s: 25 ms a turn
    assertThat(wait.waitMillis(20, 1000 * MS)).isEqualTo(225);
    // 57 turns in 1.4 s: one turn to the front, half of its 24.6 ms
    assertThat(wait.waitMillis(3, 1400 * MS)).isEqualTo(12);
    // 58 turns in 1.45 s, one turn left: never below the poll interval
    assertThat(wait.waitMillis(3, 1450 * MS)).isGreaterThanOrEqualTo(10);
  }

  @Test
  void aWaiterWhoseQueueDoesNotMovePollsSeldomButKeepsItsTicketAlive() {
    QueuePolls.Progress wait = polls.new Progress();

    wait.waitMillis(5, 0);
    // Nobody moved in 2 s (a long section): at most every quarter of the 5 s lapse
    assertThat(wait.waitMillis(5, 2000 * MS)).isEqualTo(1250);
  }

  @Test
  void pushedBackByHigherPrioritiesItCountsAgainFromThere() {
    QueuePolls.Progress wait = polls.new Progress();

    wait.waitMillis(4, 0);
    assertThat(wait.waitMillis(9, 100 * MS)).isEqualTo(70);
    // 7 places in 70 ms from the new start: 10 ms a turn
    assertThat(wait.waitMillis(2, 170 * MS)).isEqualTo(10);
  }

  @Test
  void theFrontPollsNoOftenerThanATenthOfHowLongTheHolderHasHeld() {
    AtomicInteger reads = new AtomicInteger();
    QueuePolls.Progress wait =
        polls.progress(
            () -> {
              reads.incrementAndGet();
              return new QueuePolls.Holder(60_000, 5_000); // held 5 s, a minute left
            });

    assertThat(wait.waitMillis(1, 0)).isEqualTo(500);
    assertThat(wait.waitMillis(1, 500 * MS)).as("it holds on: 5.5 s").isEqualTo(550);
    assertThat(reads).as("read once while its time lasts").hasValue(1);
  }

  @Test
  void aLeaseHeldForMinutesIsPolledFourTimesPerLapseAShortHoldEveryInterval() {
    assertThat(polls.progress(() -> new QueuePolls.Holder(30_000, 900_000)).waitMillis(1, 0))
        .isEqualTo(1250);
    assertThat(polls.progress(() -> new QueuePolls.Holder(30_000, 20)).waitMillis(1, 0))
        .isEqualTo(10);
    assertThat(polls.progress(() -> QueuePolls.Holder.NONE).waitMillis(1, 0))
        .as("free or unknown")
        .isEqualTo(10);
  }

  @Test
  void theFrontPollsAtTheHoldersExpiryAndReadsItAgainThen() {
    AtomicInteger reads = new AtomicInteger();
    QueuePolls.Progress wait =
        polls.progress(
            () ->
                reads.incrementAndGet() == 1
                    ? new QueuePolls.Holder(300, 60_000)
                    : new QueuePolls.Holder(30_000, 61_250));

    assertThat(wait.waitMillis(1, 0)).as("its expiry comes first").isEqualTo(300);
    assertThat(wait.waitMillis(1, 200 * MS)).isEqualTo(100);
    assertThat(reads).hasValue(1);
    // Past that expiry: renewal pushed it out, and the front slows down again.
    assertThat(wait.waitMillis(1, 1250 * MS)).isEqualTo(1250);
    assertThat(reads).hasValue(2);
  }

  @Test
  void aNewPlaceAtTheFrontReadsTheHolderAgain() {
    AtomicInteger reads = new AtomicInteger();
    QueuePolls.Progress wait =
        polls.progress(
            () ->
                reads.incrementAndGet() == 1
                    ? new QueuePolls.Holder(30_000, 60_000)
                    : new QueuePolls.Holder(30_000, 50));

    assertThat(wait.waitMillis(2, 0)).isEqualTo(1250);
    // The head before it was granted: a new holder, just started.
    assertThat(wait.waitMillis(1, 10 * MS)).isEqualTo(10);
    assertThat(reads).hasValue(2);
  }

  @Test
  void aHeardSignalTakesThePlaceOfTheFrontsPollsAndOneNotHeardDoesNot() {
    AtomicBoolean hearing = new AtomicBoolean(true);
    ReleaseSignal signal = signal(new AtomicLong(), hearing);
    QueuePolls.Progress wait =
        new QueuePolls(Duration.ofMillis(10), Duration.ofSeconds(5), signal)
            .progress(() -> QueuePolls.Holder.NONE);

    assertThat(wait.waitMillis(1, 0)).as("woken by the signal, not the interval").isEqualTo(1);
    hearing.set(false); // not proved yet, proved not to arrive, or its connection down
    assertThat(wait.waitMillis(1, 0)).isEqualTo(10);
  }

  @Test
  void behindTheFrontAndBeforeTheFirstPollItListensWithoutWaitingAtTheFrontItWaits()
      throws Exception {
    List<Long> timeouts = new CopyOnWriteArrayList<>();
    ReleaseSignal signal =
        new ReleaseSignal() {
          @Override
          public long seen() {
            return 0;
          }

          @Override
          public boolean awaitAfter(long seen, long timeoutNanos) {
            timeouts.add(timeoutNanos);
            return false;
          }

          @Override
          public void close() {}
        };
    QueuePolls queue = new QueuePolls(Duration.ofMillis(10), Duration.ofSeconds(5), signal);
    QueuePolls.Progress wait = queue.progress(() -> QueuePolls.Holder.NONE);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);

    queue.beforePoll(0, 0, wait, deadline); // the wait's first poll
    queue.beforePoll(40, 0, wait, deadline); // far back
    queue.beforePoll(3, 0, wait, deadline);
    assertThat(timeouts)
        .as("listening starts while the writer waits anywhere in the queue, with no wait")
        .containsExactly(0L, 0L, 0L);

    queue.beforePoll(1, 0, wait, deadline);
    assertThat(timeouts).hasSize(4);
    assertThat(timeouts.get(3))
        .as("the head waits for the release: ten intervals")
        .isEqualTo(100 * MS);
  }

  @Test
  void theHeadLapseIsShortWhileAReleaseIsHeardAndCoversAPolledHeadsSlowestWait() {
    AtomicBoolean hearing = new AtomicBoolean(true);
    ReleaseSignal signal = signal(new AtomicLong(), hearing);

    assertThat(new QueuePolls(Duration.ofMillis(10), Duration.ofSeconds(5), signal).headLapse())
        .as("woken at once by a release; a free lease polled every 100 ms")
        .isEqualTo(Duration.ofMillis(QueuePolls.HEAD_LAPSE_MILLIS));
    assertThat(new QueuePolls(Duration.ofSeconds(1), Duration.ofSeconds(60), signal).headLapse())
        .as("three of its 10 s waits for a signal")
        .isEqualTo(Duration.ofSeconds(30));
    hearing.set(false);
    assertThat(new QueuePolls(Duration.ofMillis(10), Duration.ofSeconds(5), signal).headLapse())
        .as("polled: twice its slowest wait, a quarter of the lapse")
        .isEqualTo(Duration.ofMillis(2500));
    assertThat(polls.headLapse()).isEqualTo(Duration.ofMillis(2500));
    assertThat(new QueuePolls(Duration.ofSeconds(1), Duration.ofSeconds(1), null).headLapse())
        .as("never more than the lapse")
        .isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aReleaseSignalledSinceTheHolderWasReadMakesTheFrontReadItAgain() {
    AtomicLong signalled = new AtomicLong();
    AtomicInteger reads = new AtomicInteger();
    QueuePolls.Progress wait =
        new QueuePolls(
                Duration.ofMillis(10),
                Duration.ofSeconds(5),
                signal(signalled, new AtomicBoolean(true)))
            .progress(
                () -> {
                  reads.incrementAndGet();
                  return new QueuePolls.Holder(60_000, 5_000);
                });

    assertThat(wait.holderLeftNanos(2, 0)).isEqualTo(60_000 * MS);
    assertThat(wait.holderLeftNanos(2, 10 * MS)).isEqualTo(59_990 * MS);
    assertThat(reads).as("read once while nothing changed").hasValue(1);
    signalled.incrementAndGet(); // a release: the lease may be free and kept for a dead head
    wait.holderLeftNanos(2, 20 * MS);
    assertThat(reads).hasValue(2);
  }

  private static ReleaseSignal signal(AtomicLong signalled, AtomicBoolean hearing) {
    return new ReleaseSignal() {
      @Override
      public long seen() {
        return signalled.get();
      }

      @Override
      public boolean awaitAfter(long seen, long timeoutNanos) {
        return true;
      }

      @Override
      public boolean hearing() {
        return hearing.get();
      }

      @Override
      public void close() {}
    };
  }
}
