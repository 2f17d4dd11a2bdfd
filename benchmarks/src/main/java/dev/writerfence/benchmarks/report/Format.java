package dev.writerfence.benchmarks.report;

import java.util.Locale;

/** How the report writes numbers in its tables and prose: the same rounding everywhere. */
final class Format {
  private Format() {}

  /**
   * @param v any value, {@code NaN} when it was not measured
   * @return {@code v} with thousands separators and no decimals from 1,000 up, one decimal from 10
   *     up, two below; {@code n/a} for {@code NaN}
   */
  static String fmt(double v) {
    if (Double.isNaN(v)) {
      return "n/a";
    }
    double a = Math.abs(v);
    if (a >= 1000) {
      return String.format(Locale.ROOT, "%,.0f", v);
    }
    if (a >= 10) {
      return String.format(Locale.ROOT, "%.1f", v);
    }
    return String.format(Locale.ROOT, "%.2f", v);
  }

  /**
   * @param share a fraction (0.01 is 1%), {@code NaN} when it was not measured
   * @return the share as a percentage with two decimals, or {@code n/a} for {@code NaN}
   */
  static String percent(double share) {
    return Double.isNaN(share) ? "n/a" : String.format(Locale.ROOT, "%.2f%%", share * 100);
  }
}
