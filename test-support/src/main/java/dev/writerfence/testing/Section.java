package dev.writerfence.testing;

import java.time.Instant;
import java.util.Objects;

/**
 * One recorded critical section: who ran it, under which fencing token, and when it entered and
 * left on the one clock that every recorder of a run shares (the recording database's {@code
 * clock_timestamp()}, or the positions in one ordered log).
 *
 * @param writer who ran it; never {@code null}
 * @param fencingToken the fencing token of the lease it ran under; a section that ran without one
 *     carries 0 or less
 * @param enteredAt when it entered, read after the lease was acquired; never {@code null}
 * @param exitedAt when it left, read before the lease was released; never {@code null}
 * @param leaseAcquiredAt when its lease was granted, or {@code null} when the record does not know
 *     (then {@code leaseExpiresAt} is {@code null} too)
 * @param leaseExpiresAt when its lease expired at the latest, or {@code null} when the record does
 *     not know
 */
public record Section(
    String writer,
    long fencingToken,
    Instant enteredAt,
    Instant exitedAt,
    Instant leaseAcquiredAt,
    Instant leaseExpiresAt) {

  /**
   * @throws NullPointerException when the writer or a time of the section is {@code null}
   * @throws IllegalArgumentException when only one end of the lease is known
   */
  public Section {
    Objects.requireNonNull(writer, "writer");
    Objects.requireNonNull(enteredAt, "enteredAt");
    Objects.requireNonNull(exitedAt, "exitedAt");
    if ((leaseAcquiredAt == null) != (leaseExpiresAt == null)) {
      throw new IllegalArgumentException(
          "a lease is known by both ends or neither: acquired "
              + leaseAcquiredAt
              + ", expires "
              + leaseExpiresAt);
    }
  }

  /** A section whose lease times the record does not know. */
  public Section(String writer, long fencingToken, Instant enteredAt, Instant exitedAt) {
    this(writer, fencingToken, enteredAt, exitedAt, null, null);
  }

  /**
   * A section timed in one JVM by {@link System#nanoTime()}: its times are that clock's readings as
   * instants after the epoch, good for ordering sections of that JVM and nothing else.
   *
   * @param writer who ran it
   * @param fencingToken the fencing token of the lease it ran under
   * @param enteredNanos {@code System.nanoTime()} read after the lease was acquired
   * @param exitedNanos {@code System.nanoTime()} read before the lease was released
   * @return the section
   */
  public static Section onNanoTime(
      String writer, long fencingToken, long enteredNanos, long exitedNanos) {
    return new Section(
        writer,
        fencingToken,
        Instant.EPOCH.plusNanos(enteredNanos),
        Instant.EPOCH.plusNanos(exitedNanos));
  }

  /**
   * @return whether the record knows when this section's lease was granted and expired
   */
  public boolean knowsItsLease() {
    return leaseAcquiredAt != null;
  }

  @Override
  public String toString() {
    return "section of "
        + writer
        + " with fencing token "
        + fencingToken
        + " ["
        + enteredAt
        + ", "
        + exitedAt
        + "]";
  }
}
