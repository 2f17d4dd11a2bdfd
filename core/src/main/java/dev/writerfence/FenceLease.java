package dev.writerfence;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One lease on one fence name, as the database granted it.
 *
 * <p>Times are the database's clock ({@code clock_timestamp()}). The holder token is the bearer's
 * secret: only it can renew or release the lease. The fencing token strictly increases with every
 * acquisition of the fence name, so storage can refuse a write stamped with an older one.
 *
 * <p>A lease from a {@link WriterFence} is valid from its acquire until it is released or lost. It
 * is lost when a renewal finds it expired or taken over, or when no acquire or renewal confirmed it
 * in time: the JVM's monotonic clock (never the wall clock) counts its TTL, less a safety margin of
 * a tenth of the TTL (at most 1 s), from the moment the last confirmed acquire or renew statement
 * was sent. The database counts the same TTL from a later moment (when it ran the statement), so a
 * lease-row lease this process still regards as valid has not expired in the database. With the
 * advisory-lock backend there is no expiry in the database: the lock can vanish at any instant (its
 * connection killed) and another writer can win it before the next renewal notices, so validity
 * there is only as fresh as the last renewal's check, and the fencing token is what protects
 * storage. Lost is final; the fence's listeners hear of it once ({@link FenceListener#lost}).
 *
 * <p>A writer calls {@link #checkValid()} right before each storage write, and stamps the write
 * with the {@linkplain #fencingToken() fencing token}:
 *
 * <pre>{@code
 * fence.run(request, () -> {
 *   FenceLease lease = WriterFence.current("corpus").orElseThrow();
 *   for (Batch batch : batches) {
 *     lease.checkValid(); // FenceLostException: stop, write nothing more
 *     s3.putObject(put(batch).metadata(Map.of("fencing-token", "" + lease.fencingToken())), body);
 *   }
 * });
 * }</pre>
 *
 * The check narrows the window for a stale write to the time one write takes; it cannot close it (a
 * pause between the check and the write's arrival can outlast the TTL). Storage or readers that
 * compare fencing tokens close it.
 *
 * <p>Thread-safe.
 */
public final class FenceLease {
  private final String fenceName;
  private final UUID holderToken;
  private final String holderLabel;
  private final long fencingToken;
  private final Instant acquiredAt;
  private final Duration ttl;
  private final AtomicBoolean released = new AtomicBoolean();
  private final AtomicReference<String> lostReason = new AtomicReference<>();

  /** The latest confirmation: expiry (database clock) and local deadline (monotonic clock). */
  private volatile Confirmed confirmed;

  /** The fence name's turn among its fence's threads, given back at release or loss. */
  private volatile LocalTurns.Turn turn;

  /** Told once when the lease is lost; {@code null} while no fence keeps the lease. */
  private volatile LossHook lossHook;

  private record Confirmed(Instant expiresAt, boolean tracked, long validUntilNanos) {}

  /** What a fence does when one of its leases is lost. */
  @FunctionalInterface
  interface LossHook {
    void lost(FenceLease lease, String reason);
  }

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
    this.ttl = Objects.requireNonNull(ttl, "ttl");
    this.confirmed = new Confirmed(Objects.requireNonNull(expiresAt, "expiresAt"), false, 0L);
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
   * @return when the lease may be taken over unless renewed, database clock: the expiry of the
   *     acquire, or of the latest renewal the database confirmed
   */
  public Instant expiresAt() {
    return confirmed.expiresAt();
  }

  /**
   * @return the TTL this lease was acquired with
   */
  public Duration ttl() {
    return ttl;
  }

  /**
   * Whether this process still regards the lease as its own: true from acquire until it is released
   * through {@link WriterFence} or lost (see the class description). Reads the JVM's monotonic
   * clock; a lease whose time ran out without a confirmed renewal turns lost here at once.
   *
   * @return {@code false} once released or lost
   */
  public boolean isValid() {
    if (released.get() || lostReason.get() != null) {
      return false;
    }
    Confirmed c = confirmed;
    if (c.tracked() && System.nanoTime() - c.validUntilNanos() >= 0) {
      markLost(timeRanOut());
      return false;
    }
    return true;
  }

  /**
   * Throws unless the lease is {@linkplain #isValid() valid}. Call it right before each storage
   * write made under the lease.
   *
   * @throws FenceLostException naming the fence, the fencing token and why, when the lease was lost
   *     or released
   */
  public void checkValid() {
    if (isValid()) {
      return;
    }
    String reason = lostReason.get();
    throw new FenceLostException(
        this, reason != null ? reason : "the lease was released; it is no longer held");
  }

  /**
   * @return why the lease was lost, or empty while it is not lost (a released lease is not lost)
   */
  public Optional<String> lostReason() {
    isValid(); // a lease whose time ran out is lost from now on
    return Optional.ofNullable(lostReason.get());
  }

  /**
   * Starts counting the TTL on the JVM's monotonic clock, and names who hears of a loss.
   *
   * @param sentNanos {@link System#nanoTime()} taken before the acquire statement was sent
   */
  void track(long sentNanos, LossHook hook) {
    Confirmed c = confirmed;
    this.confirmed = new Confirmed(c.expiresAt(), true, sentNanos + validNanos());
    this.lossHook = hook;
  }

  /**
   * A renewal the database confirmed.
   *
   * @param expiresAt the new expiry, database clock
   * @param sentNanos {@link System#nanoTime()} taken before the renew statement was sent
   */
  void confirmRenewal(Instant expiresAt, long sentNanos) {
    this.confirmed = new Confirmed(expiresAt, true, sentNanos + validNanos());
  }

  /**
   * @return nanoseconds from now until the lease stops being valid by the monotonic clock; {@link
   *     Long#MAX_VALUE} when no fence counts its TTL
   */
  long nanosLeft() {
    Confirmed c = confirmed;
    return c.tracked() ? c.validUntilNanos() - System.nanoTime() : Long.MAX_VALUE;
  }

  /**
   * Marks the lease lost, once: a released lease is not lost.
   *
   * @return {@code true} when this call made it lost
   */
  boolean markLost(String reason) {
    if (released.get() || !lostReason.compareAndSet(null, reason)) {
      return false;
    }
    // A lost lease no longer holds the fence: the next thread of this fence may ask the database,
    // which grants the lease once the row has expired (the turn never decides, the row does).
    giveBackTurn();
    LossHook hook = lossHook;
    if (hook != null) {
      hook.lost(this, reason);
    }
    return true;
  }

  /** Keeps the fence name's local turn until the lease is released or lost. */
  void holdTurn(LocalTurns.Turn turn) {
    this.turn = turn;
    if (lostReason.get() != null) { // lost before the turn was attached
      turn.giveBack();
    }
  }

  /**
   * Marks this lease as the hold of an acquire or tryAcquire, which its caller releases: a fenced
   * call of the same fence and name on the acquiring thread joins it.
   */
  void heldByCaller() {
    LocalTurns.Turn t = turn;
    if (t != null) {
      t.heldByCaller(this);
    }
  }

  /** Hands the fence name's local turn to the next waiting thread of its fence, if it has one. */
  void giveBackTurn() {
    LocalTurns.Turn t = turn;
    if (t != null) {
      t.giveBack();
    }
  }

  /**
   * @return {@code true} for the first call only
   */
  boolean markReleased() {
    return released.compareAndSet(false, true);
  }

  /**
   * @return {@code true} once a release was made or begun
   */
  boolean isReleased() {
    return released.get();
  }

  /** The TTL less the safety margin: a tenth of the TTL, at most 1 second. */
  private long validNanos() {
    long ttlNanos = ttl.toNanos();
    return ttlNanos - Math.min(ttlNanos / 10, 1_000_000_000L);
  }

  private String timeRanOut() {
    return "no acquire or renewal confirmed the lease within its TTL of "
        + ttl.toSeconds()
        + " s (less a safety margin), counted on this JVM's monotonic clock from when the"
        + " statement was sent; another holder may take it over";
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
        + expiresAt()
        + "]";
  }
}
