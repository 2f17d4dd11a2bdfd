package dev.writerfence.retry;

import io.github.resilience4j.core.IntervalFunction;
import java.time.Duration;
import java.util.Objects;

/**
 * How often, and how far apart, a busy acquire is tried again: exponential backoff with random
 * jitter, run by Resilience4j Retry ({@link IntervalFunction#ofExponentialRandomBackoff}).
 *
 * <p>Only the acquire is retried, never the guarded code. The wait before attempt {@code n + 1} is
 * {@code min(maxInterval, initialInterval * multiplier^(n-1))}, spread by {@code ±jitter} of
 * itself. Defaults: 5 attempts, 200 ms, multiplier 2.0, at most 5 s, jitter 0.5: about 3 s of
 * waiting before a caller is told busy.
 *
 * <p>With a store that keeps a fair queue of waiters (the lease row's, contract version 2), a busy
 * acquire takes a ticket and polls on the queue's own schedule (fast at the front of the queue,
 * slower behind it) instead of this backoff: there the policy says whether to wait at all ({@code
 * maxAttempts} 1: never) and how long in all ({@link #budget()}).
 *
 * @param maxAttempts attempts in all, the first included; at least 1
 * @param initialInterval wait before the second attempt; at least 1 ms
 * @param multiplier growth of the wait per attempt; at least 1.0
 * @param maxInterval upper bound of one wait; at least {@code initialInterval}
 * @param jitter randomization factor, from 0.0 (none) to 1.0 (±100 %)
 * @param maxWait the total time a busy acquire may wait (setting {@code retry.max-wait}), turns in
 *     this process included; at least 1 ms; {@code null}: what the attempts' backoff schedules
 *     ({@link #scheduledWait()})
 */
public record BusyRetryPolicy(
    int maxAttempts,
    Duration initialInterval,
    double multiplier,
    Duration maxInterval,
    double jitter,
    Duration maxWait) {

  private static final BusyRetryPolicy DEFAULTS =
      new BusyRetryPolicy(5, Duration.ofMillis(200), 2.0, Duration.ofSeconds(5), 0.5);

  /**
   * A policy bounded by its attempts only: {@code maxWait} is {@code null}.
   *
   * @throws IllegalArgumentException naming the value and the rule when a value breaks its rule
   */
  public BusyRetryPolicy(
      int maxAttempts,
      Duration initialInterval,
      double multiplier,
      Duration maxInterval,
      double jitter) {
    this(maxAttempts, initialInterval, multiplier, maxInterval, jitter, null);
  }

  /**
   * @throws IllegalArgumentException naming the value and the rule when a value breaks its rule
   */
  public BusyRetryPolicy {
    Objects.requireNonNull(initialInterval, "initialInterval");
    Objects.requireNonNull(maxInterval, "maxInterval");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException(
          "writer-fence: retry.max-attempts " + maxAttempts + " is not allowed: at least 1");
    }
    if (initialInterval.toMillis() < 1) {
      throw new IllegalArgumentException(
          "writer-fence: retry.initial-interval "
              + initialInterval
              + " is not allowed: at least 1 ms");
    }
    if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
      throw new IllegalArgumentException(
          "writer-fence: retry.multiplier " + multiplier + " is not allowed: at least 1.0");
    }
    if (maxInterval.compareTo(initialInterval) < 0) {
      throw new IllegalArgumentException(
          "writer-fence: retry.max-interval "
              + maxInterval
              + " is not allowed: at least retry.initial-interval ("
              + initialInterval
              + ")");
    }
    if (!(jitter >= 0.0 && jitter <= 1.0)) {
      throw new IllegalArgumentException(
          "writer-fence: retry jitter " + jitter + " is not allowed: 0.0 to 1.0");
    }
    if (maxWait != null && (maxWait.isNegative() || maxWait.toMillis() < 1)) {
      throw new IllegalArgumentException(
          "writer-fence: retry.max-wait " + maxWait + " is not allowed: at least 1 ms");
    }
  }

  /**
   * @return 5 attempts, 200 ms, multiplier 2.0, at most 5 s, jitter 0.5
   */
  public static BusyRetryPolicy defaults() {
    return DEFAULTS;
  }

  /**
   * @return one attempt: busy is reported at once
   */
  public static BusyRetryPolicy noRetry() {
    return DEFAULTS.withMaxAttempts(1);
  }

  /**
   * @param maxAttempts attempts in all; at least 1
   * @return a copy with that many attempts
   */
  public BusyRetryPolicy withMaxAttempts(int maxAttempts) {
    return new BusyRetryPolicy(
        maxAttempts, initialInterval, multiplier, maxInterval, jitter, maxWait);
  }

  /**
   * @param initialInterval wait before the second attempt; at least 1 ms
   * @return a copy with that first wait (and a max interval raised to it if needed)
   */
  public BusyRetryPolicy withInitialInterval(Duration initialInterval) {
    Duration max = maxInterval.compareTo(initialInterval) < 0 ? initialInterval : maxInterval;
    return new BusyRetryPolicy(maxAttempts, initialInterval, multiplier, max, jitter, maxWait);
  }

  /**
   * @param multiplier growth of the wait per attempt; at least 1.0
   * @return a copy with that multiplier
   */
  public BusyRetryPolicy withMultiplier(double multiplier) {
    return new BusyRetryPolicy(
        maxAttempts, initialInterval, multiplier, maxInterval, jitter, maxWait);
  }

  /**
   * @param maxInterval upper bound of one wait; at least the initial interval
   * @return a copy with that bound
   */
  public BusyRetryPolicy withMaxInterval(Duration maxInterval) {
    return new BusyRetryPolicy(
        maxAttempts, initialInterval, multiplier, maxInterval, jitter, maxWait);
  }

  /**
   * @param jitter randomization factor from 0.0 to 1.0
   * @return a copy with that jitter
   */
  public BusyRetryPolicy withJitter(double jitter) {
    return new BusyRetryPolicy(
        maxAttempts, initialInterval, multiplier, maxInterval, jitter, maxWait);
  }

  /**
   * @param maxWait the total time a busy acquire may wait; at least 1 ms; {@code null}: what the
   *     attempts' backoff schedules
   * @return a copy with that budget
   * @throws IllegalArgumentException when {@code maxWait} is under 1 ms
   */
  public BusyRetryPolicy withMaxWait(Duration maxWait) {
    return new BusyRetryPolicy(
        maxAttempts, initialInterval, multiplier, maxInterval, jitter, maxWait);
  }

  /**
   * How long a busy acquire of this policy may wait in all before busy is its answer: {@link
   * #maxWait()} when set, otherwise {@link #scheduledWait()}; zero for one attempt.
   *
   * @return the budget; never {@code null}
   */
  public Duration budget() {
    if (maxAttempts == 1) {
      return Duration.ZERO;
    }
    return maxWait != null ? maxWait : scheduledWait();
  }

  /**
   * The waits between the attempts, summed, without jitter: how long a caller of this policy is
   * prepared to wait, on average, before busy is its answer.
   *
   * @return the sum of the {@code maxAttempts - 1} nominal intervals; zero for one attempt
   */
  public Duration scheduledWait() {
    return Duration.ofMillis(totalMillis());
  }

  /**
   * This policy cut to the attempts whose scheduled waits fit in what is left of its {@link
   * #scheduledWait()} (and of {@link #maxWait()}, when set): used after part of the wait was spent
   * elsewhere (queued behind writers of the same process), so that the whole wait stays what the
   * policy promises.
   *
   * @param spent time already waited; not negative
   * @return a copy with the most attempts, at least 1, whose scheduled waits fit in the rest
   */
  public BusyRetryPolicy afterWaiting(Duration spent) {
    long budget = maxWait == null ? totalMillis() : Math.min(totalMillis(), maxWait.toMillis());
    double left = budget - spent.toMillis();
    int waits = maxAttempts - 1;
    int growing = growingWaits();
    double initial = initialInterval.toMillis();
    long fit;
    if (left < 0) {
      fit = 0;
    } else if (multiplier == 1.0) {
      fit = (long) Math.floor(left / initial + 1e-9);
    } else {
      // Largest n with initial * (m^n - 1) / (m - 1) <= left, then whole max intervals after.
      fit = (long) Math.floor(log(left * (multiplier - 1) / initial + 1) + 1e-9);
      if (fit >= growing) {
        double rest = left - geometricMillis(growing);
        fit = growing + (long) Math.floor(rest / maxInterval.toMillis() + 1e-9);
      }
    }
    int attempts = (int) Math.min(waits, Math.max(0, fit)) + 1;
    return attempts == maxAttempts ? this : withMaxAttempts(attempts);
  }

  /** The nominal waits between all attempts, summed, in milliseconds; at most Long.MAX / 2. */
  private long totalMillis() {
    int growing = growingWaits();
    double total =
        geometricMillis(growing) + (double) (maxAttempts - 1 - growing) * maxInterval.toMillis();
    return (long) Math.min(total, Long.MAX_VALUE / 2.0);
  }

  /** How many of the waits are below the max interval, still growing by the multiplier. */
  private int growingWaits() {
    int waits = maxAttempts - 1;
    double initial = initialInterval.toMillis();
    double max = maxInterval.toMillis();
    if (initial >= max) {
      return 0;
    }
    if (multiplier == 1.0) {
      return waits;
    }
    return (int) Math.min(waits, Math.ceil(log(max / initial)));
  }

  /** The first {@code n} waits of the growing part, summed, in milliseconds. */
  private double geometricMillis(int n) {
    double initial = initialInterval.toMillis();
    return multiplier == 1.0
        ? initial * n
        : initial * (Math.pow(multiplier, n) - 1) / (multiplier - 1);
  }

  /** Logarithm to the base of the multiplier. */
  private double log(double x) {
    return Math.log(x) / Math.log(multiplier);
  }

  /**
   * @return the Resilience4j interval function for these settings
   */
  public IntervalFunction intervalFunction() {
    if (jitter == 0.0) {
      return IntervalFunction.ofExponentialBackoff(initialInterval, multiplier, maxInterval);
    }
    return IntervalFunction.ofExponentialRandomBackoff(
        initialInterval, multiplier, jitter, maxInterval);
  }
}
