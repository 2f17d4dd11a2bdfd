package dev.writerfence.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The scheduled wait of a policy, and the policy cut to what is left of it. */
class BusyRetryPolicyWaitTest {
  @Test
  void theDefaultsWaitThreeSecondsBetweenFiveAttempts() {
    // 200 + 400 + 800 + 1600 ms
    assertThat(BusyRetryPolicy.defaults().scheduledWait()).isEqualTo(Duration.ofMillis(3000));
  }

  @Test
  void oneAttemptHasNoWait() {
    assertThat(BusyRetryPolicy.noRetry().scheduledWait()).isZero();
  }

  @Test
  void theMaxIntervalCapsEachWait() {
    BusyRetryPolicy policy =
        new BusyRetryPolicy(5, Duration.ofMillis(100), 10.0, Duration.ofMillis(300), 0.5);
    // 100 + 300 + 300 + 300
    assertThat(policy.scheduledWait()).isEqualTo(Duration.ofMillis(1000));
  }

  @Test
  void afterWaitingKeepsTheAttemptsWhoseWaitsStillFit() {
    BusyRetryPolicy policy = BusyRetryPolicy.defaults();

    assertThat(policy.afterWaiting(Duration.ZERO)).isSameAs(policy);
    // 3000 - 1000 = 2000 left: 200 + 400 + 800 fit, 1600 more does not
    assertThat(policy.afterWaiting(Duration.ofMillis(1000)).maxAttempts()).isEqualTo(4);
    assertThat(policy.afterWaiting(Duration.ofMillis(2850)).maxAttempts()).isEqualTo(1);
    assertThat(policy.afterWaiting(Duration.ofMillis(2800)).maxAttempts()).isEqualTo(2);
    assertThat(policy.afterWaiting(Duration.ofSeconds(60)).maxAttempts())
        .as("always one attempt")
        .isEqualTo(1);
  }

  @Test
  void aConstantIntervalIsCountedInClosedForm() {
    BusyRetryPolicy policy =
        new BusyRetryPolicy(1_000_000, Duration.ofMillis(10), 1.0, Duration.ofSeconds(1), 0.0);

    assertThat(policy.scheduledWait()).isEqualTo(Duration.ofMillis(9_999_990));
    assertThat(policy.afterWaiting(Duration.ofMillis(9_999_990 - 95)).maxAttempts()).isEqualTo(10);
  }

  @Test
  void retryingForeverIsAWaitOfCenturiesNotAnError() {
    BusyRetryPolicy forever =
        new BusyRetryPolicy(Integer.MAX_VALUE, Duration.ofMillis(200), 2.0, Duration.ofHours(1), 0);

    assertThat(forever.scheduledWait()).isGreaterThan(Duration.ofDays(365 * 100));
    assertThat(forever.afterWaiting(Duration.ofHours(2)).maxAttempts())
        .isEqualTo(Integer.MAX_VALUE - 2);
  }

  @Test
  void aHugeScheduleDoesNotOverflow() {
    BusyRetryPolicy policy =
        new BusyRetryPolicy(
            Integer.MAX_VALUE / 1000, Duration.ofMillis(1), 1e300, Duration.ofDays(365), 0.0);
    assertThat(policy.scheduledWait()).isPositive();
    assertThat(policy.afterWaiting(Duration.ofDays(1)).maxAttempts()).isPositive();
  }
}
