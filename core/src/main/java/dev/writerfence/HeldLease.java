package dev.writerfence;

import dev.writerfence.context.HeldFences;
import dev.writerfence.spi.FencedCall;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.TransientLeaseStoreException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One held lease, from its grant to its release or loss: the only owner of its state. It keeps the
 * store's handle, the fence name's turn among its fence's threads, the deadline counted on the
 * JVM's monotonic clock, the state its renewal needs, its entry in the shutdown hook, and the
 * release with its retry. {@link FenceLease} is the immutable view that applications see; for a
 * weaving mode it is also the {@link FencedCall} of the call that acquired it.
 *
 * <p>The deadline is the TTL less a safety margin (a tenth of the TTL, at most 1 s), counted from
 * when the last confirmed acquire or renew statement was sent.
 */
final class HeldLease implements FencedCall, FenceLease.State {
  private static final Logger LOG = LoggerFactory.getLogger(HeldLease.class);
  private static final VarHandle RELEASED;
  private static final VarHandle LOST_REASON;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      RELEASED = lookup.findVarHandle(HeldLease.class, "released", boolean.class);
      LOST_REASON = lookup.findVarHandle(HeldLease.class, "lostReason", String.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final WriterFence fence;
  final StoreLease handle;
  final FenceLease view;
  private final long validNanos;

  private volatile boolean released;
  private volatile String lostReason;
  private volatile Instant expiresAt;
  private volatile long validUntilNanos;
  private volatile LocalTurns.Turn turn;

  // What the fence's LeaseKeeper schedules for this lease; see there.
  final ReentrantLock renewing = new ReentrantLock();
  long renewIntervalNanos; // 0: not renewed; set before the first task is scheduled
  volatile ScheduledFuture<?> nextRenewal;
  volatile ScheduledFuture<?> watchdog;
  volatile RuntimeException lastRenewalFailure;

  /**
   * @param sentNanos {@link System#nanoTime()} taken before the earliest acquire statement that may
   *     have granted the lease was sent
   */
  HeldLease(
      WriterFence fence,
      StoreLease handle,
      String fenceName,
      UUID holderToken,
      String holderLabel,
      Duration ttl,
      long sentNanos) {
    this.fence = fence;
    this.handle = handle;
    long ttlNanos = ttl.toNanos();
    this.validNanos = ttlNanos - Math.min(ttlNanos / 10, 1_000_000_000L);
    this.expiresAt = handle.expiresAt();
    this.validUntilNanos = sentNanos + validNanos;
    this.view =
        new FenceLease(
            this,
            fenceName,
            holderToken,
            holderLabel,
            handle.fencingToken(),
            handle.acquiredAt(),
            ttl);
  }

  /** See {@link FenceLease#isValid()}. */
  @Override
  public boolean isValid() {
    if (released || lostReason != null) {
      return false;
    }
    if (System.nanoTime() - validUntilNanos >= 0) {
      markLost(timeRanOut());
      return false;
    }
    return true;
  }

  /**
   * @return why the lease was lost, or {@code null}
   */
  @Override
  public String lostReason() {
    return lostReason;
  }

  @Override
  public Instant expiresAt() {
    return expiresAt;
  }

  /**
   * @return nanoseconds from now until the lease stops being valid by the monotonic clock
   */
  long nanosLeft() {
    return validUntilNanos - System.nanoTime();
  }

  /**
   * A renewal the database confirmed.
   *
   * @param newExpiry the new expiry, database clock
   * @param sentNanos {@link System#nanoTime()} taken before the renew statement was sent
   */
  void confirmRenewal(Instant newExpiry, long sentNanos) {
    this.validUntilNanos = sentNanos + validNanos;
    this.expiresAt = newExpiry;
  }

  /**
   * Marks the lease lost, once: a released lease is not lost. Gives the turn back, stops its
   * renewal and tells the fence's listener.
   *
   * @return {@code true} when this call made it lost
   */
  boolean markLost(String reason) {
    if (released || !LOST_REASON.compareAndSet(this, null, reason)) {
      return false;
    }
    // A lost lease no longer holds the fence: the next thread of this fence may ask the database,
    // which grants the lease once the row has expired (the turn never decides, the row does).
    giveBackTurn();
    fence.keeper.lost(this, reason);
    return true;
  }

  /** Keeps the fence name's local turn until the lease is released or lost. */
  void holdTurn(LocalTurns.Turn taken) {
    this.turn = taken;
    if (lostReason != null) { // lost before the turn was attached
      taken.giveBack();
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

  private void giveBackTurn() {
    LocalTurns.Turn t = turn;
    if (t != null) {
      t.giveBack();
    }
  }

  /**
   * @return {@code true} once a release was made or begun
   */
  boolean isReleased() {
    return released;
  }

  /**
   * The release of {@link WriterFence#release}: renewal stopped first, then one release statement
   * (transient errors retried by the fence's release retry), then the turn handed on.
   */
  boolean release() {
    isValid(); // a lease whose time ran out is lost from now on
    boolean lost = lostReason != null;
    if (!RELEASED.compareAndSet(this, false, true)) {
      // Released already, here or by the shutdown hook racing a container's own close: one
      // release per lease, so no second statement, warning or listener call.
      return false;
    }
    fence.keeper.stop(this, fence.renewalWaitNanos);
    ShutdownHook.forget(this);
    boolean freed;
    try {
      freed = fence.releaseRetry.executeSupplier(handle::release);
    } catch (RuntimeException e) {
      if (lost) {
        LOG.debug("writer-fence: release of lost fence '{}' failed", view.fenceName(), e);
        ListenerCalls.notify(() -> fence.listener.released(view, false));
        return false;
      }
      if (!(e instanceof WriterFenceUnavailableException)
          && !(e instanceof TransientLeaseStoreException)) {
        // The store answered, but not with a release (an advisory unlock that found no lock):
        // for listeners and metrics that is a release that freed nothing.
        ListenerCalls.notify(() -> fence.listener.released(view, false));
      }
      if (e instanceof TransientLeaseStoreException t) {
        throw new WriterFenceUnavailableException(
            view.fenceName(),
            "writer-fence: fence '"
                + view.fenceName()
                + "': the release kept failing transiently (SQLState "
                + t.sqlState()
                + "); the lease frees itself at its expiry "
                + expiresAt
                + " (database clock)",
            e);
      }
      throw e;
    } finally {
      giveBackTurn(); // after the row is free, so the next thread's first attempt can win
    }
    if (!freed && lost) {
      LOG.debug(
          "writer-fence: release of lost fence '{}' (fencing token {}) found another holder or a"
              + " free row",
          view.fenceName(),
          view.fencingToken());
    } else if (!freed) {
      LOG.warn(
          "writer-fence: release of fence '{}' (fencing token {}, holder '{}') found another holder"
              + " or a free row: the lease had expired",
          view.fenceName(),
          view.fencingToken(),
          view.holderLabel());
    }
    ListenerCalls.notify(() -> fence.listener.released(view, freed));
    return freed;
  }

  /** Releases after the guarded code; never masks the code's own outcome. */
  void releaseAfter(Throwable primary) {
    try {
      release();
    } catch (RuntimeException e) {
      if (primary != null) {
        primary.addSuppressed(e);
      } else {
        LOG.warn(
            "writer-fence: release of fence '{}' (fencing token {}) failed; {}",
            view.fenceName(),
            view.fencingToken(),
            afterFailedRelease(e),
            e);
      }
    }
  }

  /**
   * The shutdown hook's release: one statement, no retry, after waiting for a renewal under way
   * until {@code deadlineNanos} at most. Logs and swallows any failure.
   */
  void releaseBefore(long deadlineNanos) {
    if (!RELEASED.compareAndSet(this, false, true)) {
      return;
    }
    fence.keeper.stop(this, deadlineNanos - System.nanoTime());
    ShutdownHook.forget(this);
    try {
      boolean freed = handle.release();
      ListenerCalls.notify(() -> fence.listener.released(view, freed));
    } catch (RuntimeException e) {
      LOG.warn(
          "writer-fence: at shutdown the release of fence '{}' (fencing token {}) failed; {}",
          view.fenceName(),
          view.fencingToken(),
          afterFailedRelease(e),
          e);
    }
    // The turn is kept: a thread of this process waiting for it would take the freed row at once
    // and hold it past the JVM's halt, so the next process would wait out the TTL.
  }

  /** What becomes of a lease whose release failed, for the warning. */
  private String afterFailedRelease(RuntimeException failure) {
    if (failure instanceof WriterFenceUnavailableException) {
      return "the lease frees itself at its expiry "
          + expiresAt
          + " (database clock) or, with the advisory backend, when its connection closes";
    }
    return "the store refused the release: " + failure.getMessage();
  }

  private String timeRanOut() {
    return "no acquire or renewal confirmed the lease within its TTL of "
        + view.ttl().toSeconds()
        + " s (less a safety margin), counted on this JVM's monotonic clock from when the"
        + " statement was sent; another holder may take it over";
  }

  // The fenced call that acquired this lease.

  @Override
  public boolean joined() {
    return false;
  }

  @Override
  public FenceLease lease() {
    return view;
  }

  @Override
  public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
    // The hold on this thread ends here; an asynchronous body keeps its lease until its stage
    // completes.
    HeldFences.pop(view);
    if (thrown == null && returned instanceof CompletionStage<?> stage) {
      CompletableFuture<Object> afterRelease = new CompletableFuture<>();
      stage.whenComplete(
          (value, failure) -> {
            if (!released) {
              releaseAfter(failure);
            }
            if (failure != null) {
              afterRelease.completeExceptionally(failure);
            } else {
              afterRelease.complete(value);
            }
          });
      return declaredReturnType.isAssignableFrom(CompletableFuture.class) ? afterRelease : stage;
    }
    if (!released) { // a lost lease too: its row may still carry our token
      releaseAfter(thrown);
    }
    return returned;
  }

  /** A fenced call inside a hold this thread took before: it releases nothing. */
  static final class Joined implements FencedCall {
    /** The one instance: it has no state. */
    static final Joined OUTER = new Joined();

    private Joined() {}

    @Override
    public boolean joined() {
      return true;
    }

    @Override
    public FenceLease lease() {
      return null;
    }

    @Override
    public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
      return returned;
    }
  }
}
