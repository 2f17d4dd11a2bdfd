package dev.writerfence;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedInvocation;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One hold of a lease, from its grant to its release or loss: who holds it (fence name, holder
 * token and label, fencing token, who took it), the joined calls that pin it, its entry on the
 * thread's held-fence stack, and the fence name's turn among its fence's threads, given back when
 * it ends. For a weaving mode it is the {@link FencedCall} of the call that acquired it. Whether
 * the lease still holds, its renewal and its loss belong to its {@link RenewingLease}. {@link
 * FenceLease}, the immutable view that applications see, is made only when someone asks for it
 * ({@link #view()}).
 */
final class HeldLease implements FencedCall, FenceLease.State {
  private static final VarHandle VIEW;

  static {
    try {
      VIEW = MethodHandles.lookup().findVarHandle(HeldLease.class, "view", FenceLease.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * What the store granted, read off its lease at once (so that nothing of the store runs again
   * until the release).
   *
   * @param lease the store's lease
   * @param holderToken the holder token the acquire minted
   * @param fencingToken the lease's fencing token
   * @param acquiredAt when it was acquired, database clock
   * @param expiresAt its expiry, database clock
   * @param sentNanos {@link System#nanoTime()} taken before the earliest acquire statement that may
   *     have granted it was sent
   */
  record Grant(
      StoreLease lease,
      UUID holderToken,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt,
      long sentNanos) {
    /** Reads {@code lease} now. */
    static Grant of(StoreLease lease, UUID holderToken, long sentNanos) {
      return new Grant(
          lease,
          holderToken,
          lease.fencingToken(),
          lease.acquiredAt(),
          lease.expiresAt(),
          sentNanos);
    }
  }

  private final RenewingLease lease;
  private final LeaseStore domain;
  private final String fenceName;
  private final UUID holderToken;
  private final String holderLabel;
  private final long fencingToken;
  private final Instant acquiredAt;
  private final Duration ttl;
  private final LocalTurns.Turn turn;
  private volatile FenceLease view; // made by the first view(), set once
  // Its observation until its release or loss; null: the fence observes nothing. Set once, right
  // after the hold was pushed; read by the listener calls of its release (this thread) and of its
  // loss (the renewal thread).
  volatile ObservedFence.Hold observation;

  // Who took it, for the audit's writer map: set before its entry is pushed, so every thread that
  // sees the entry (its own, or one it was carried to) sees it set.
  private final String takenBy;

  /**
   * Its entry on the thread's held-fence stack. A record apart, not this class itself: the agent
   * puts {@code HeldFenceStack} in the bootstrap loader after core's classes may have loaded, so no
   * class that loads early may implement its entry interface.
   */
  final HeldFenceStack.Entry entry = new StackEntry(this);

  // Joined calls whose work may outlive the call that holds this lease (a stage, a lazy result, a
  // carried task's fenced call): while any is pinned, a release is deferred to the last unpin.
  private final Object pinLock = new Object();
  private int pins; // guarded by pinLock
  private boolean releaseDeferred; // guarded by pinLock

  private HeldLease(
      RenewingLease.Context keeping,
      LeaseStore domain,
      Grant grant,
      String fenceName,
      String holderLabel,
      Duration ttl,
      LocalTurns.Turn turn,
      String takenBy) {
    this.domain = domain;
    this.fenceName = fenceName;
    this.holderToken = grant.holderToken();
    this.holderLabel = holderLabel;
    this.fencingToken = grant.fencingToken();
    this.acquiredAt = grant.acquiredAt();
    this.ttl = ttl;
    this.turn = turn;
    this.takenBy = takenBy;
    this.lease =
        new RenewingLease(grant.lease(), this, keeping, ttl, grant.expiresAt(), grant.sentNanos());
  }

  /**
   * Holds a granted lease: wraps it in its renewing lease, which starts renewing and watching it. A
   * lease that cannot be kept (its fence was closed) is released, and the turn given back.
   *
   * @param keeping what its fence keeps leases with
   * @param domain the lease store: the hold's exclusion domain
   * @param turn the fence name's turn, given back when the hold ends
   * @param takenBy the fenced method or the API's caller; {@code null} when unknown
   * @return the hold, not yet on the stack
   * @throws WriterFenceUnavailableException when the fence was closed
   */
  static HeldLease hold(
      RenewingLease.Context keeping,
      LeaseStore domain,
      Grant grant,
      String fenceName,
      String holderLabel,
      Duration ttl,
      LocalTurns.Turn turn,
      String takenBy) {
    HeldLease held =
        new HeldLease(keeping, domain, grant, fenceName, holderLabel, ttl, turn, takenBy);
    boolean kept;
    try {
      kept = held.lease.keep();
    } catch (Throwable t) { // no timer thread (OutOfMemoryError): unwatched, so give it back now
      held.releaseAfter(t);
      throw t;
    }
    if (!kept) {
      if (!held.lease.isReleased()) {
        held.releaseAfter(null);
      }
      throw FencedCallFlow.closedException(fenceName);
    }
    return held;
  }

  /**
   * The fence's record of the hold {@code lease} views: the one owner of its state.
   *
   * @throws IllegalArgumentException when another copy of writer-fence took the lease
   */
  static HeldLease of(FenceLease lease) {
    if (lease.state() instanceof HeldLease held) {
      return held;
    }
    throw new IllegalArgumentException(
        "writer-fence: the lease of fence '"
            + lease.fenceName()
            + "' ("
            + FencingTokens.inWords(lease.fencingToken())
            + ") was taken by another copy of writer-fence in this JVM (the agent's); the fenced"
            + " call that took it releases it");
  }

  /** The view applications see, made once, when first asked for. */
  FenceLease view() {
    FenceLease v = view;
    if (v != null) {
      return v;
    }
    v = new FenceLease(this, fenceName, holderToken, holderLabel, fencingToken, acquiredAt, ttl);
    FenceLease won = (FenceLease) VIEW.compareAndExchange(this, null, v);
    return won != null ? won : v;
  }

  /** Its renewing lease: whether it still holds, its renewal and its loss. */
  RenewingLease renewing() {
    return lease;
  }

  String fenceName() {
    return fenceName;
  }

  String holderLabel() {
    return holderLabel;
  }

  long fencingToken() {
    return fencingToken;
  }

  /** See {@link FenceLease#isValid()}. */
  @Override
  public boolean isValid() {
    return lease.isValid();
  }

  @Override
  public String lostReason() {
    return lease.lostReason();
  }

  @Override
  public Instant expiresAt() {
    return lease.expiresAt();
  }

  @Override
  public BooleanSupplier onLost(Consumer<String> callback) {
    return lease.onLost(callback);
  }

  /** Nanoseconds from now until the lease stops being valid by the monotonic clock. */
  long nanosLeft() {
    return lease.nanosLeft();
  }

  /**
   * Its lease was lost: the turn goes to the next thread of this fence, which may ask the database
   * (which grants the lease once the row has expired: the turn never decides, the row does).
   */
  void lost() {
    turn.giveBack();
  }

  /**
   * Marks this lease as the hold of an acquire or tryAcquire, which its caller releases: a fenced
   * call of the same fence and name on the acquiring thread joins it.
   */
  void heldByCaller() {
    turn.heldByCaller(this);
  }

  /** {@code true} once a release was made or begun. */
  boolean isReleased() {
    return lease.isReleased();
  }

  /**
   * The release of {@link WriterFence#release}: renewal stopped first, then one release statement
   * (transient errors retried by the fence's release retry), then the turn handed on.
   */
  boolean release() {
    if (deferRelease()) {
      return true; // released by the last joined call that still runs inside this hold
    }
    if (!lease.markReleasing()) {
      return false; // released already: the turn stays where that release left it
    }
    try {
      return lease.releaseMarked();
    } finally {
      turn.giveBack(); // after the row is free, so the next thread's first attempt can win
    }
  }

  /**
   * Pins this lease for a joined call, so that its release waits for that call's work to end.
   *
   * @return the unpin to run once, when the joined work has ended; {@code null} when the lease is
   *     released (or its release was asked for) or no longer valid: then there is no hold to join
   */
  Runnable pin() {
    if (!isValid()) { // outside the lock: finding it lost tells the listener
      return null;
    }
    synchronized (pinLock) {
      if (lease.isReleased() || releaseDeferred) {
        return null;
      }
      pins++;
    }
    return this::unpin;
  }

  private void unpin() {
    boolean releaseNow;
    synchronized (pinLock) {
      pins--;
      releaseNow = pins == 0 && releaseDeferred;
    }
    if (releaseNow) {
      releaseAfter(null);
    }
  }

  /** {@code true} when joined work still runs inside this hold: its last unpin releases. */
  private boolean deferRelease() {
    synchronized (pinLock) {
      if (pins == 0) {
        return false;
      }
      releaseDeferred = true;
      return true;
    }
  }

  /** Releases after the guarded code; never masks the code's own outcome. */
  void releaseAfter(Throwable primary) {
    try {
      release();
    } catch (RuntimeException e) {
      if (primary != null) {
        primary.addSuppressed(e);
      } else {
        ReleaseOutcomes.failedAfterCall(this, e);
      }
    }
  }

  /**
   * The shutdown hook's release: one statement, no retry, after waiting for a renewal under way
   * until {@code deadlineNanos} at most. Logs and swallows any failure. The turn is kept: a thread
   * of this process waiting for it would take the freed row at once and hold it past the JVM's
   * halt, so the next process would wait out the TTL.
   */
  void releaseBefore(long deadlineNanos) {
    lease.releaseBefore(deadlineNanos);
  }

  // The fenced call that acquired this lease.

  @Override
  public boolean joined() {
    return false;
  }

  /** The stack entry's lease, and the lease the call acquired ({@link FencedCall#lease()}). */
  @Override
  public FenceLease lease() {
    return view();
  }

  @Override
  public HeldFenceStack.Entry entry() {
    return entry;
  }

  @Override
  public Object proceed(FencedInvocation invocation, Class<?> declaredReturnType) throws Throwable {
    return around(this, invocation, declaredReturnType);
  }

  /** The around form of any fenced call: the method, then the call's exit whatever happened. */
  static Object around(FencedCall call, FencedInvocation invocation, Class<?> declaredReturnType)
      throws Throwable {
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable t) {
      call.exit(null, t, declaredReturnType);
      throw t;
    }
    return call.exit(result, null, declaredReturnType);
  }

  /**
   * Ends the hold on this thread: pops its entry, then releases, and gives the turn back (a call
   * that returned a stage holds until the stage completes). See {@link FencedCall#exit}.
   */
  @Override
  public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
    HeldFenceStack.pop(entry);
    if (lease.disarm()) {
      return exitInterruptible(returned, thrown, declaredReturnType);
    }
    if (thrown == null && returned instanceof CompletionStage<?> stage) {
      CompletableFuture<Object> afterRelease = new CompletableFuture<>();
      stage.whenComplete(
          (value, failure) -> {
            if (!lease.isReleased()) {
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
    // A lost lease too: its row may still carry our token. The steps of release() inline: the
    // release statement follows the pop with no other step of this class between (ADR 34).
    if (lease.isReleased()) {
      return returned;
    }
    synchronized (pinLock) {
      if (pins > 0) {
        releaseDeferred = true; // released by the last joined call that still runs inside this hold
        return returned;
      }
    }
    if (!lease.markReleasing()) {
      return returned;
    }
    try {
      lease.releaseMarked();
    } catch (RuntimeException e) {
      if (thrown != null) {
        thrown.addSuppressed(e);
      } else {
        ReleaseOutcomes.failedAfterCall(this, e);
      }
    } finally {
      turn.giveBack(); // after the row is free, so the next thread's first attempt can win
    }
    return returned;
  }

  /**
   * The exit of a call that asked to be interrupted on loss: the thread is never interrupted from
   * here on, the lease is released as usual, and a loss before this point ends the call in {@link
   * FenceLostException}.
   */
  private Object exitInterruptible(Object returned, Throwable thrown, Class<?> declaredReturnType) {
    isValid(); // a lease whose time ran out is lost from now on
    String reason = lease.lostReason();
    if (reason == null) {
      return exit(returned, thrown, declaredReturnType);
    }
    FenceLostException lost = Interrupter.lostDuringTheCall(view(), reason, thrown);
    if (!lease.isReleased()) {
      releaseAfter(lost);
    }
    throw lost;
  }

  /** A hold as the held-fence stack shows it to every copy of core, in JDK types. */
  record StackEntry(HeldLease held) implements HeldFenceStack.Entry {
    @Override
    public String fenceName() {
      return held.fenceName;
    }

    @Override
    public Object domain() {
      return held.domain;
    }

    @Override
    public String domainName() {
      return held.domain.exclusionDomain().orElse(null);
    }

    @Override
    public FenceLease lease() {
      return held.view();
    }

    @Override
    public boolean isValid() {
      return held.isValid();
    }

    @Override
    public String lostReason() {
      return held.lostReason();
    }

    @Override
    public boolean isReleased() {
      return held.isReleased();
    }

    @Override
    public UUID holderToken() {
      return held.holderToken;
    }

    @Override
    public String holderLabel() {
      return held.holderLabel;
    }

    @Override
    public String takenBy() {
      return held.takenBy;
    }

    @Override
    public long fencingToken() {
      return held.fencingToken;
    }

    @Override
    public Instant acquiredAt() {
      return held.acquiredAt;
    }

    @Override
    public Instant expiresAt() {
      return held.expiresAt();
    }

    @Override
    public Duration ttl() {
      return held.ttl;
    }

    @Override
    public BooleanSupplier onLost(Consumer<String> callback) {
      return held.onLost(callback);
    }
  }
}
