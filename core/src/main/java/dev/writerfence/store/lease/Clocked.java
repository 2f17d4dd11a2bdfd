package dev.writerfence.store.lease;

import java.time.Instant;
import java.util.Objects;

/**
 * What one statement read, with the database clock ({@code clock_timestamp()}) of that statement:
 * an operator's view measures ages ("acquired 12.3 s ago", "waited", "lapses in") against the
 * database's time, never this process's.
 *
 * @param <T> what was read
 * @param value what was read; never {@code null}
 * @param databaseTime the database's {@code clock_timestamp()} when it was read; never {@code null}
 */
public record Clocked<T>(T value, Instant databaseTime) {
  /**
   * @throws NullPointerException when either is {@code null}
   */
  public Clocked {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(databaseTime, "databaseTime");
  }
}
