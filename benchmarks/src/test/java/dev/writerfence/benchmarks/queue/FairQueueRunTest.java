package dev.writerfence.benchmarks.queue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class FairQueueRunTest {
  @Test
  void theIdleBoundFollowsThePollSchedule() {
    Duration poll = Duration.ofMillis(10);
    Duration lapse = Duration.ofSeconds(5);
    // head and second every 10 ms, third every 20 ms
    assertThat(FairQueueRun.pollBoundPerSecond(3, poll, lapse)).isCloseTo(250, within(1e-9));
    // places 9 and on: 10 ms x 2^7 = 1.28 s, capped at a quarter of the lapse (1.25 s)
    double eight = FairQueueRun.pollBoundPerSecond(8, poll, lapse);
    assertThat(FairQueueRun.pollBoundPerSecond(10, poll, lapse) - eight)
        .isCloseTo(2 * 0.8, within(1e-9));
  }

  @Test
  void settingsRefuseTooFewContendersAndEmptyPhases() {
    assertThatThrownBy(() -> new FairQueueRun.Settings(1, 5, 5, 10_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("contenders 1 is not allowed: at least 2");
    assertThatThrownBy(() -> new FairQueueRun.Settings(8, 0, 5, 10_000))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("each at least 1 s");
  }

  @Test
  void fewerContendersAreSixteenOfSixtyFourAndHalfOfAFew() {
    assertThat(new FairQueueRun.Settings(64, 5, 5, 10_000).fewer()).isEqualTo(16);
    assertThat(new FairQueueRun.Settings(8, 2, 2, 10_000).fewer()).isEqualTo(4);
    assertThat(new FairQueueRun.Settings(2, 2, 2, 10_000).fewer()).isEqualTo(2);
  }
}
