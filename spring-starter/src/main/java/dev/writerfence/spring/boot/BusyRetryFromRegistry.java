package dev.writerfence.spring.boot;

import dev.writerfence.retry.BusyRetryPolicy;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import java.time.Duration;
import java.util.Optional;

/**
 * Busy retry from the application's Resilience4j {@link RetryRegistry}: the retry instance (or
 * named configuration) {@value #INSTANCE}.
 *
 * <p>The core runs busy retry with a {@link BusyRetryPolicy} (attempts, first wait, multiplier,
 * cap, jitter), while a Resilience4j {@link RetryConfig} keeps its waits as a function. The policy
 * is read off that function: the number of attempts exactly; the waits before attempts 2..n by
 * calling it. Fixed and exponential waits (with or without a cap) are reproduced exactly.
 * Randomized waits are sampled: the base wait is the middle of the sampled range and the jitter its
 * half-width, to within a few per cent. A shape the policy cannot express (linear, say) stops the
 * start-up with a message, rather than being approximated silently.
 */
final class BusyRetryFromRegistry {
  /** The retry instance or configuration name the starter looks up. */
  static final String INSTANCE = "writer-fence";

  private static final int SAMPLES = 400;
  private static final int MAX_WAITS = 12;

  private BusyRetryFromRegistry() {}

  /**
   * @param registry the application's registry
   * @return the policy, or empty when the registry has neither a retry nor a configuration named
   *     {@value #INSTANCE}
   * @throws IllegalStateException when its waits are neither fixed nor exponential
   */
  static Optional<BusyRetryPolicy> policy(RetryRegistry registry) {
    Optional<RetryConfig> config =
        registry
            .find(INSTANCE)
            .map(io.github.resilience4j.retry.Retry::getRetryConfig)
            .or(() -> registry.getConfiguration(INSTANCE));
    return config.map(BusyRetryFromRegistry::policy);
  }

  static BusyRetryPolicy policy(RetryConfig config) {
    int attempts = config.getMaxAttempts();
    BusyRetryPolicy base = BusyRetryPolicy.defaults().withMaxAttempts(attempts);
    if (attempts < 2) {
      return base;
    }
    IntervalBiFunction<Object> waits = config.getIntervalBiFunction();
    int n = Math.min(attempts - 1, MAX_WAITS);
    long[] low = new long[n];
    long[] high = new long[n];
    boolean random = false;
    for (int i = 0; i < n; i++) {
      low[i] = Long.MAX_VALUE;
      high[i] = Long.MIN_VALUE;
      int samples = i == 0 || random ? SAMPLES : 2;
      for (int s = 0; s < samples; s++) {
        long w = waits.apply(i + 1, Either.left(new IllegalStateException("busy")));
        low[i] = Math.min(low[i], w);
        high[i] = Math.max(high[i], w);
      }
      random |= low[i] != high[i];
    }
    double jitter = 0.0;
    long[] mid = new long[n];
    for (int i = 0; i < n; i++) {
      mid[i] = Math.round((low[i] + high[i]) / 2.0);
      if (random && mid[i] > 0) {
        jitter = Math.max(jitter, (high[i] - low[i]) / (double) (high[i] + low[i]));
      }
    }
    if (random) {
      jitter = Math.min(1.0, Math.round(jitter * 20) / 20.0); // to the nearest 0.05
    }
    long initial = Math.max(1, mid[0]);
    double multiplier = n > 1 && mid[1] > mid[0] ? (double) mid[1] / mid[0] : 1.0;
    if (random) {
      multiplier = Math.round(multiplier * 20) / 20.0;
    }
    long max = initial;
    for (long m : mid) {
      max = Math.max(max, m);
    }
    BusyRetryPolicy policy =
        base.withInitialInterval(Duration.ofMillis(initial))
            .withMultiplier(Math.max(1.0, multiplier))
            .withMaxInterval(Duration.ofMillis(max))
            .withJitter(jitter);
    // The fitted policy must give the same waits (the middle of the range, when randomized).
    double tolerance = random ? 0.1 : 0.0;
    io.github.resilience4j.core.IntervalFunction fitted = policy.withJitter(0.0).intervalFunction();
    for (int i = 0; i < n; i++) {
      long expected = fitted.apply(i + 1);
      if (Math.abs(expected - mid[i]) > Math.max(1, tolerance * mid[i])) {
        throw new IllegalStateException(
            "writer-fence: the Resilience4j retry '"
                + INSTANCE
                + "' waits "
                + java.util.Arrays.toString(mid)
                + " ms before attempts 2.."
                + (n + 1)
                + ", which busy retry cannot express: give it a fixed or exponential backoff"
                + " (randomized or not, with or without a cap), or remove it and set"
                + " writer-fence.retry.*");
      }
    }
    return policy;
  }
}
