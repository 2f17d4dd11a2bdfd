package dev.writerfence;

import dev.writerfence.bootstrap.HeldFenceStack;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

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
 * <p>Three ways for the guarded code to learn of a loss: poll {@link #isValid()} or {@link
 * #checkValid()} before each write (below); register {@link #onLost} to be called once when it
 * happens; or let a fenced call interrupt its own thread on loss ({@link
 * FenceRequest.Builder#interruptOnLoss}, {@code @WriterFenced(interruptOnLoss = true)}), which then
 * ends in {@link FenceLostException} (a fenced method returning a {@code Mono}, {@code Flux} or
 * RxJava 3 type has its subscription cancelled instead, which fails with it). The body overloads
 * {@link WriterFence#callWithLease} and {@link WriterFence#runWithLease} hand the body its lease.
 *
 * <p>A writer calls {@link #checkValid()} right before each storage write, and stamps the write
 * with the {@linkplain #fencingToken() fencing token}:
 *
 * <pre>{@code
 * fence.runWithLease(request, lease -> {
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
 * <p>An immutable view: a lease is only ever made by a {@link WriterFence}, and its changing state
 * (expiry, released, lost) belongs to the fence's record of the hold, which this view reads. A
 * lease that another copy of writer-fence in the JVM took (the agent's, which carries its own) is
 * shown by {@link WriterFence#current} as a view of this class too, reading that copy's entry on
 * the thread's held-fence stack; it is released by the call that took it, never through {@link
 * WriterFence#release}. Thread-safe.
 */
public final class FenceLease {
  private final String fenceName;
  private final UUID holderToken;
  private final String holderLabel;
  private final long fencingToken;
  private final Instant acquiredAt;
  private final Duration ttl;
  private final State held;

  /** Where a view reads the changing state of its lease: the one owner of that state. */
  interface State {
    /**
     * @return the latest confirmed expiry, database clock; never {@code null}
     */
    Instant expiresAt();

    /**
     * @return {@code false} once released or lost
     */
    boolean isValid();

    /**
     * @return why the lease was lost, or {@code null} while it is not lost
     */
    String lostReason();

    /**
     * @param callback told the reason once, when the lease is lost
     * @return cancels: {@code true} when dropped before it ran; {@code null} when this state cannot
     *     tell of a loss
     */
    BooleanSupplier onLost(Consumer<String> callback);
  }

  /** A callback registered with {@link #onLost}: cancel it when it is no longer wanted. */
  @FunctionalInterface
  public interface Registration {
    /**
     * Drops the callback if it has not run yet; it then never runs. Idempotent.
     *
     * @return {@code true} when this call dropped it before it ran; {@code false} when it ran or
     *     runs now, was dropped before, or the lease was released (released callbacks never run)
     */
    boolean cancel();
  }

  FenceLease(
      State held,
      String fenceName,
      UUID holderToken,
      String holderLabel,
      long fencingToken,
      Instant acquiredAt,
      Duration ttl) {
    this.held = held;
    this.fenceName = fenceName;
    this.holderToken = holderToken;
    this.holderLabel = holderLabel;
    this.fencingToken = fencingToken;
    this.acquiredAt = acquiredAt;
    this.ttl = ttl;
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
   * @throws UnsupportedOperationException when the backend issued none (the lease-RPC backend on a
   *     contract without a counter, ADR 57): the message says why and how to get one; {@link
   *     #hasFencingToken()} asks first
   */
  public long fencingToken() {
    if (fencingToken == FencingTokens.NONE) {
      throw new UnsupportedOperationException(
          "writer-fence: fence '"
              + fenceName
              + "' is held through a backend that cannot mint fencing tokens (backend=lease-rpc:"
              + " the existing lease-RPC contract keeps no counter), so there is none to stamp"
              + " writes with; writer-fence does not invent one. Exclusion still holds. To get"
              + " fencing tokens, move every leg to writer-fence's own contract (the legs can"
              + " keep their RPC calls through the optional lease-RPC compatibility migration)"
              + " and use backend=lease");
    }
    return fencingToken;
  }

  /**
   * @return whether the backend issued a fencing token for this lease: {@code false} only for a
   *     backend that cannot mint one (backend=lease-rpc), where {@link #fencingToken()} throws
   */
  public boolean hasFencingToken() {
    return fencingToken != FencingTokens.NONE;
  }

  /** The token as the backend gave it, {@link FencingTokens#NONE} included: for messages. */
  long rawFencingToken() {
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
    return held.expiresAt();
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
    return held.isValid();
  }

  /**
   * Throws unless the lease is {@linkplain #isValid() valid}. Call it right before each storage
   * write made under the lease.
   *
   * @throws FenceLostException naming the fence, the fencing token and why, when the lease was lost
   *     or released
   */
  public void checkValid() {
    if (held.isValid()) {
      return;
    }
    String reason = held.lostReason();
    throw new FenceLostException(
        this, reason != null ? reason : "the lease was released; it is no longer held");
  }

  /**
   * @return why the lease was lost, or empty while it is not lost (a released lease is not lost)
   */
  public Optional<String> lostReason() {
    held.isValid(); // a lease whose time ran out is lost from now on
    return Optional.ofNullable(held.lostReason());
  }

  /**
   * Asks to be told once when this lease is lost: a renewal found it expired or taken over, or no
   * renewal confirmed it within its TTL (see the class description). Not on a release: a lease
   * released before it was lost never runs its callbacks. Loss is final, so each callback runs at
   * most once.
   *
   * <p>Where it runs: on a thread of the fence's renewal pool that exists for the notice (never its
   * timer thread, so a slow callback cannot delay any lease's renewal; the callbacks of one lease
   * run one after another, before the fence's {@link FenceListener#lost}), or, when the lease is
   * lost already, on the calling thread before this method returns. A callback that throws is
   * logged and ignored. A lease that another copy of writer-fence took (the agent's) is told by
   * that copy the same way, when that copy is of this version or later.
   *
   * <p>Use it to stop work the guarded code cannot poll for: cancel a subscription or a future,
   * close a stream, or interrupt a worker (a fenced call can ask for the interrupt of its own
   * thread instead: {@link FenceRequest.Builder#interruptOnLoss}). The callback must not write
   * under the lease.
   *
   * @param callback receives a {@link FenceLostException} naming the fence, the fencing token and
   *     why; never {@code null}
   * @return cancels the callback, for example when the work it would stop has ended; never {@code
   *     null}
   * @throws NullPointerException when {@code callback} is {@code null}
   * @throws UnsupportedOperationException when the lease is another copy of writer-fence's and that
   *     copy, older than this one, cannot tell of a loss
   */
  public Registration onLost(Consumer<? super FenceLostException> callback) {
    Objects.requireNonNull(callback, "callback");
    BooleanSupplier cancel;
    try {
      cancel = held.onLost(reason -> callback.accept(new FenceLostException(this, reason)));
    } catch (LinkageError older) { // a held-fence stack of an older copy, without onLost
      cancel = null;
    }
    if (cancel == null) {
      throw new UnsupportedOperationException(
          "writer-fence: the lease of fence '"
              + fenceName
              + "' ("
              + FencingTokens.inWords(fencingToken)
              + ") was taken by an older copy of writer-fence in this JVM, which cannot tell of a"
              + " loss; poll isValid() or checkValid() instead");
    }
    return cancel::getAsBoolean;
  }

  /**
   * @return where this view reads its lease's state: the holding copy of core's own record, or
   *     another copy's stack entry
   */
  State state() {
    return held;
  }

  /**
   * @param entry a hold on the thread's held-fence stack, pushed by any copy of core; never {@code
   *     null}
   * @return its lease when this copy of core pushed it, otherwise a view reading the entry
   */
  static FenceLease of(HeldFenceStack.Entry entry) {
    if (entry.lease() instanceof FenceLease own) {
      return own;
    }
    return new FenceLease(
        new Pushed(entry),
        entry.fenceName(),
        entry.holderToken(),
        entry.holderLabel(),
        entry.fencingToken(),
        entry.acquiredAt(),
        entry.ttl());
  }

  /** The state of a lease that another copy of core holds, read from its stack entry. */
  private record Pushed(HeldFenceStack.Entry entry) implements State {
    @Override
    public Instant expiresAt() {
      return entry.expiresAt();
    }

    @Override
    public boolean isValid() {
      return entry.isValid();
    }

    @Override
    public String lostReason() {
      return entry.lostReason();
    }

    @Override
    public BooleanSupplier onLost(Consumer<String> callback) {
      return entry.onLost(callback);
    }
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
