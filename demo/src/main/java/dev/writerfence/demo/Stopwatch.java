package dev.writerfence.demo;

/** Seconds since a moment, on the monotonic clock: the durations the demo prints. */
final class Stopwatch {
  private final long startNanos;

  private Stopwatch(long startNanos) {
    this.startNanos = startNanos;
  }

  /**
   * @return a stopwatch running from now
   */
  static Stopwatch start() {
    return new Stopwatch(System.nanoTime());
  }

  /**
   * @return the seconds since it started
   */
  double seconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }
}
