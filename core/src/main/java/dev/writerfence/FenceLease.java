package dev.writerfence;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One lease on one fence name, as the database granted it.
 *
 * <p>Times are the database's clock ({@code clock_timestamp()}); the JVM clock plays no part. The
 * holder token is the bearer's secret: only it can renew or release the lease. The fencing token
 * strictly increases with every acquisition of the fence name, so storage can refuse a write
 * stamped with an older one.
 *
 * <p>Thread-safe.
 */
public final class FenceLease {
  private final String fenceName;
  private final UUID holderToken;
  private final String holderLabel;
  private final long fencingToken;
  private final Instant acquiredAt;
  private final Instant expiresAt;
  private final Duration ttl;
  private volatile boolean released;

  /**
   * @param fenceName the fence name; never {@code null}
   * @param holderToken the holder token minted for this acquire; never {@code null}
   * @param holderLabel the holder label, or {@code null}
   * @param fencingToken the fencing token the database returned, at least 1
   * @param acquiredAt when the lease was granted (database clock); never {@code null}
   * @param expiresAt when the lease may be taken over (database clock); never {@code null}
   * @param ttl the TTL it was acquired with; never {@code null}
   */
  public FenceLease(
      String fenceName,
      UUID holderToken,
      String holderLabel,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt,
      Duration ttl) {
    this.fenceName = Objects.requireNonNull(fenceName, "fenceName");
    this.holderToken = Objects.requireNonNull(holderToken, "holderToken");
    this.holderLabel = holderLabel;
    this.fencingToken = fencingToken;
    this.acquiredAt = Objects.requireNonNull(acquiredAt, "acquiredAt");
    this.expiresAt = Objects.requireNonNull(expiresAt, "expiresAt");
    this.ttl = Objects.requireNonNull(ttl, "ttl");
  }

  /**
   * @return the fence name; never {@code null}
   */
  public String fenceName() {
    return fenceName;
  }

  /**
   * @return the holder token minted for this acquire; never {@code null}
   */
  public UUID holderToken() {
    return holderToken;
  }

  /**
   * @return the holder label, or {@code null} when none was given
   */
  public String holderLabel() {
    return holderLabel;
  }

  /**
   * @return the fencing token: strictly greater than every token issued before for this name
   */
  public long fencingToken() {
    return fencingToken;
  }

  /**
   * @return when the lease was granted, database clock
   */
  public Instant acquiredAt() {
    return acquiredAt;
  }

  /**
   * @return when the lease may be taken over unless renewed, database clock
   */
  public Instant expiresAt() {
    return expiresAt;
  }

  /**
   * @return the TTL this lease was acquired with
   */
  public Duration ttl() {
    return ttl;
  }

  /**
   * Whether this process still regards the lease as its own: true from acquire until it is released
   * through {@link WriterFence}. It does not read any clock: a lease that outlived its TTL without
   * renewal may already belong to another holder, which the fencing token reveals.
   *
   * @return {@code false} once released
   */
  public boolean isValid() {
    return !released;
  }

  void markReleased() {
    released = true;
  }

  @Override
  public String toString() {
    return "FenceLease[fence="
        + fenceName
        + ", holder="
        + holderLabel
        + ", fencingToken="
        + fencingToken
        + ", acquiredAt="
        + acquiredAt
        + ", expiresAt="
        + expiresAt
        + "]";
  }
}
