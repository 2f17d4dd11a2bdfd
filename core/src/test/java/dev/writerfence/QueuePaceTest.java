package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link QueuePace}'s estimate and decision, on answers and instants given to it: the pace is what
 * the places moved between polls, an unknown pace never gives up, and the margin keeps a waiter
 * that a steady pace would serve in time.
 */
class QueuePaceTest {
  private static final long S = 1_000_000_000L;

  @Test
  void whileNobodyMovedThePaceIsUnknownAndNobodyGivesUp() {
    QueuePace.Wait wait = new QueuePace().wait("corpus");
    // Far back, a tiny budget left, and still polling on: no hand-over was seen.
    assertThat(wait.giveUp(50, 50, 0, S / 10)).isNull();
    assertThat(wait.giveUp(50, 50, 5 * S, 5 * S + S / 10)).isNull();
  }

  @Test
  void aTailThatCannotMakeItGivesUpWithItsEstimate() {
    QueuePace.Wait wait = new QueuePace().wait("corpus");
    assertThat(wait.giveUp(12, 12, 0, 3 * S)).isNull();
    // One place in one second: 10 more turns for place 11, 2 s of budget left.
    QueuePace.Estimate e = wait.giveUp(11, 11, S, 3 * S);
    assertThat(e).isNotNull();
    assertThat(e.place()).isEqualTo(11);
    assertThat(e.waiters()).isEqualTo(11);
    assertThat(e.expected()).isEqualTo(Duration.ofSeconds(10));
    assertThat(e.turn().handOvers()).isEqualTo(1);
  }

  @Test
  void theMarginKeepsAWriterThatASteadyPaceServesInTime() {
    // A real turn of 1 s, seen by polls 1.9 s apart that counted one hand-over: the measured turn
    // is 1.9 s. Place 3 needs 2 more turns (2 s); 2.5 s of budget are left: served in time.
    QueuePace.Wait wait = new QueuePace().wait("corpus");
    wait.giveUp(4, 4, 0, 4_400_000_000L);
    assertThat(wait.giveUp(3, 3, 1_900_000_000L, 4_400_000_000L))
        .as("3.8 s expected is within 2 x 2.5 s: one hand-over measured, margin 2")
        .isNull();
    // The head never gives up: the holder's remaining time is not known.
    assertThat(wait.giveUp(1, 3, 4 * S, 4_400_000_000L)).isNull();
  }

  @Test
  void overTwoHandOversTheMarginIsOneAndAHalf() {
    QueuePace.Wait wait = new QueuePace().wait("corpus");
    wait.giveUp(10, 10, 0, 100 * S);
    // Two places in 2 s: a turn of 1 s; place 8 expects 7 s.
    assertThat(wait.giveUp(8, 8, 2 * S, 2 * S + 4_700_000_000L)).as("7 s <= 1.5 x 4.7 s").isNull();
    QueuePace.Wait other = new QueuePace().wait("corpus");
    other.giveUp(10, 10, 0, 100 * S);
    assertThat(other.giveUp(8, 8, 2 * S, 2 * S + 4_600_000_000L))
        .as("7 s > 1.5 x 4.6 s")
        .isNotNull();
  }

  @Test
  void aPushBackStartsTheMeasurementAgain() {
    QueuePace.Wait wait = new QueuePace().wait("corpus");
    wait.giveUp(5, 5, 0, 100 * S);
    // A higher priority arrived: place 6, measured from here on.
    assertThat(wait.giveUp(6, 7, S, S + S / 10)).isNull();
    assertThat(wait.giveUp(5, 6, 2 * S, 2 * S + S / 10)).isNotNull();
  }

  @Test
  void theNextWaitOfTheNameKnowsThePaceAtItsFirstPoll() {
    QueuePace pace = new QueuePace();
    QueuePace.Wait earlier = pace.wait("corpus");
    earlier.giveUp(5, 5, 0, 100 * S);
    earlier.giveUp(4, 4, S, 100 * S);

    assertThat(pace.wait("corpus").giveUp(12, 12, 2 * S, 5 * S)).isNotNull();
    assertThat(pace.wait("other").giveUp(12, 12, 2 * S, 5 * S)).as("another name").isNull();
    long stale = (QueuePace.REMEMBERED_SECONDS + 2) * S;
    assertThat(pace.wait("corpus").giveUp(12, 12, stale, stale + 3 * S))
        .as("a pace measured too long ago")
        .isNull();
  }
}
