package dev.writerfence.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The spread of a set of durations, such as the times to win of a run: how many, the median, the
 * 99th percentile and the longest, each by nearest rank (the smallest sample that at least that
 * share of the samples does not exceed), so every reported value is one that was measured.
 *
 * @param count how many samples
 * @param p50 the median; {@link Duration#ZERO} without samples
 * @param p99 the 99th percentile; {@link Duration#ZERO} without samples
 * @param max the longest; {@link Duration#ZERO} without samples
 */
public record Percentiles(int count, Duration p50, Duration p99, Duration max) {
  /** No samples at all. */
  public static final Percentiles NONE =
      new Percentiles(0, Duration.ZERO, Duration.ZERO, Duration.ZERO);

  /**
   * @throws NullPointerException when a duration is {@code null}
   * @throws IllegalArgumentException when the count is negative
   */
  public Percentiles {
    Objects.requireNonNull(p50, "p50");
    Objects.requireNonNull(p99, "p99");
    Objects.requireNonNull(max, "max");
    if (count < 0) {
      throw new IllegalArgumentException("count " + count + " is not allowed: 0 or more");
    }
  }

  /**
   * @param samples the durations, in any order; never {@code null}, no {@code null} element
   * @return their spread; {@link #NONE} when there are none
   */
  public static Percentiles of(Collection<Duration> samples) {
    if (samples.isEmpty()) {
      return NONE;
    }
    List<Duration> sorted = new ArrayList<>(samples);
    sorted.sort(null);
    return new Percentiles(
        sorted.size(), rank(sorted, 0.50), rank(sorted, 0.99), sorted.get(sorted.size() - 1));
  }

  /**
   * The nearest-rank percentile: the sample at position {@code ceil(p * n)} (from 1) of the sorted
   * samples.
   *
   * @param sorted at least one sample, ascending
   * @param p the share, above 0 and at most 1
   */
  private static Duration rank(List<Duration> sorted, double p) {
    int position = (int) Math.ceil(p * sorted.size());
    return sorted.get(Math.max(0, position - 1));
  }

  /**
   * @param value a duration
   * @return it in milliseconds with its fraction, for reports
   */
  public static double millis(Duration value) {
    return value.toNanos() / 1_000_000.0;
  }
}
