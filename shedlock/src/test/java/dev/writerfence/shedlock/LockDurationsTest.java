package dev.writerfence.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** ShedLock's durations become TTLs to the millisecond, never shorter than asked (ADR 62). */
class LockDurationsTest {

  @Test
  void aDurationKeepsItsMillisecondsAndAFractionOfOneIsRoundedUp() {
    assertThat(LockDurations.ttl("job", Duration.ofMillis(50))).isEqualTo(Duration.ofMillis(50));
    assertThat(LockDurations.ttl("job", Duration.ofMillis(1_234).plusNanos(1)))
        .isEqualTo(Duration.ofMillis(1_235));
    assertThat(LockDurations.ttl("job", Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
    assertThat(LockDurations.ttl("job", Duration.ofDays(1))).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void nothingIsShorterThanTheShortestTtl() {
    assertThat(LockDurations.ttl("job", Duration.ZERO)).isEqualTo(Duration.ofMillis(1));
    assertThat(LockDurations.ttl("job", Duration.ofNanos(1))).isEqualTo(Duration.ofMillis(1));
    assertThat(LockDurations.remainder(1)).isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void theRemainderOfLockAtLeastForIsRoundedUpToTheMillisecond() {
    assertThat(LockDurations.remainder(3_000_000)).isEqualTo(Duration.ofMillis(3));
    assertThat(LockDurations.remainder(3_000_001)).isEqualTo(Duration.ofMillis(4));
    assertThat(LockDurations.remainder(1_999_999_999)).isEqualTo(Duration.ofMillis(2_000));
  }

  @Test
  void overADayIsRefusedNamingTheLockAndTheValue() {
    assertThatThrownBy(() -> LockDurations.ttl("nightly", Duration.ofDays(1).plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lock 'nightly'")
        .hasMessageContaining("PT24H0.000000001S")
        .hasMessageContaining("at most 1 day");
  }
}
