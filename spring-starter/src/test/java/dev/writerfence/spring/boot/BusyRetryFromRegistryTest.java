package dev.writerfence.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.retry.BusyRetryPolicy;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a Resilience4j retry named writer-fence becomes the busy retry policy. */
class BusyRetryFromRegistryTest {

  private static BusyRetryPolicy policy(RetryConfig config) {
    return BusyRetryFromRegistry.policy(RetryRegistry.of(Map.of("writer-fence", config)))
        .orElseThrow();
  }

  @Test
  void fixedWaits() {
    assertThat(
            policy(
                RetryConfig.custom().maxAttempts(3).waitDuration(Duration.ofMillis(250)).build()))
        .isEqualTo(
            new BusyRetryPolicy(3, Duration.ofMillis(250), 1.0, Duration.ofMillis(250), 0.0));
  }

  @Test
  void exponentialWaitsWithACap() {
    RetryConfig config =
        RetryConfig.custom()
            .maxAttempts(6)
            .intervalFunction(
                IntervalFunction.ofExponentialBackoff(
                    Duration.ofMillis(500), 1.5, Duration.ofSeconds(2)))
            .build();
    assertThat(policy(config))
        .isEqualTo(new BusyRetryPolicy(6, Duration.ofMillis(500), 1.5, Duration.ofSeconds(2), 0.0));
  }

  @Test
  void randomizedWaitsAreSampled() {
    RetryConfig config =
        RetryConfig.custom()
            .maxAttempts(4)
            .intervalFunction(
                IntervalFunction.ofExponentialRandomBackoff(
                    Duration.ofMillis(400), 2.0, 0.5, Duration.ofSeconds(10)))
            .build();
    BusyRetryPolicy p = policy(config);
    assertThat(p.maxAttempts()).isEqualTo(4);
    assertThat(p.jitter()).isEqualTo(0.5);
    assertThat(p.multiplier()).isEqualTo(2.0);
    assertThat(p.initialInterval().toMillis()).isBetween(380L, 420L);
  }

  @Test
  void aShapeBusyRetryCannotExpressStopsTheStartUp() {
    RetryConfig linear =
        RetryConfig.custom()
            .maxAttempts(5)
            .intervalFunction(IntervalFunction.of(Duration.ofMillis(100), x -> x + 100))
            .build();
    assertThatThrownBy(() -> policy(linear))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("writer-fence")
        .hasMessageContaining("fixed or exponential");
  }

  @Test
  void anInstanceWithThatNameWinsAndNoneMeansEmpty() {
    assertThat(BusyRetryFromRegistry.policy(RetryRegistry.ofDefaults())).isEmpty();
    RetryRegistry registry = RetryRegistry.ofDefaults();
    registry.retry("writer-fence", RetryConfig.custom().maxAttempts(2).build());
    assertThat(BusyRetryFromRegistry.policy(registry))
        .get()
        .extracting(BusyRetryPolicy::maxAttempts)
        .isEqualTo(2);
  }
}
