package dev.writerfence.benchmarks.jmh;

/** What runs while a benchmark holds a lock. */
final class CriticalSection {
  /** Nothing: the lock's own cost is what is measured. */
  static final Runnable EMPTY = () -> {};

  private CriticalSection() {}
}
