package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
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
}
