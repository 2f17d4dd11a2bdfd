package dev.writerfence;

import dev.writerfence.LeaseAcquirer.LocalTurns;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedInvocation;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.TransientLeaseStoreException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One held lease, from its grant to its release or loss: the only owner of its state. It keeps the
 * store's handle, the fence name's turn among its fence's threads, the deadline counted on the
 * JVM's monotonic clock, its renewal (tasks it schedules on its fence's renewal threads), its place
 * among the leases the JVM shutdown hook releases, and the release with its retry. It is its own
 * entry on the thread's held-fence stack, and for a weaving mode the {@link FencedCall} of the call
 * that acquired it. {@link FenceLease}, the immutable view that applications see, is made only when
 * someone asks for it ({@link #view()}).
 *
 * <p>The deadline is the TTL less a safety margin (a tenth of the TTL, at most 1 s), counted from
 * when the last confirmed acquire or renew statement was sent.
 */
final class HeldLease implements FencedCall, FenceLease.State {
  private static final Logger LOG = LoggerFactory.getLogger(HeldLease.class);
  private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final VarHandle RELEASED;
  private static final VarHandle LOST_REASON;
  private static final VarHandle VIEW;

  /**
   * The leases of fences that release at JVM shutdown, until released or lost ({@link
   * ShutdownHook}).
   */
  private static final Set<HeldLease> AT_SHUTDOWN = ConcurrentHashMap.newKeySet();

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      RELEASED = lookup.findVarHandle(HeldLease.class, "released", boolean.class);
      LOST_REASON = lookup.findVarHandle(HeldLease.class, "lostReason", String.class);
      VIEW = lookup.findVarHandle(HeldLease.class, "view", FenceLease.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final WriterFence fence;
  final StoreLease handle;
  private final String fenceName;
  private final UUID holderToken;
  private final String holderLabel;
  private final long fencingToken;
  private final Instant acquiredAt;
  private final Duration ttl;
  private final long validNanos;
  private volatile FenceLease view; // made by the first view(), set once

  // Who took it, for the audit's writer map: set once, before its entry is pushed, so every thread
  // that sees the entry (its own, or one it was carried to) sees it set.
  private String takenBy;

  /**
   * Its entry on the thread's held-fence stack. A record apart, not this class itself: the agent
   * puts {@code HeldFenceStack} in the bootstrap loader after core's classes may have loaded, so no
   * class that loads early may implement its entry interface.
   */
  final HeldFenceStack.Entry entry = new StackEntry(this);

  private volatile boolean released;
  private volatile String lostReason;

  // Joined calls whose work may outlive the call that holds this lease (a stage, a lazy result, a
  // carried task's fenced call): while any is pinned, a release is deferred to the last unpin.
  private final Object pinLock = new Object();
  private int pins; // guarded by pinLock
  private boolean releaseDeferred; // guarded by pinLock
  private volatile Instant expiresAt;
  private volatile long validUntilNanos;
  private volatile LocalTurns.Turn turn;

  // Its renewal: tasks on the fence's LeaseKeeper threads.
  private final ReentrantLock renewing = new ReentrantLock();
  private long renewIntervalNanos; // 0: not renewed; set before the first task is scheduled
  private volatile ScheduledFuture<?> nextRenewal;
  private volatile ScheduledFuture<?> watchdog;
  private volatile RuntimeException lastRenewalFailure;

  // What runs once when it is lost (FenceLease.onLost, interrupts): guarded by this object.
  private List<LossWatch> lossWatches; // null until the first, and again once told or released
  private Interrupter interrupter; // the acquiring call's, when it asked to be interrupted

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
    this.fenceName = fenceName;
    this.holderToken = holderToken;
    this.holderLabel = holderLabel;
    this.fencingToken = handle.fencingToken();
    this.acquiredAt = handle.acquiredAt();
    this.ttl = ttl;
    long ttlNanos = ttl.toNanos();
    this.validNanos = ttlNanos - Math.min(ttlNanos / 10, 1_000_000_000L);
    this.expiresAt = handle.expiresAt();
    this.validUntilNanos = sentNanos + validNanos;
  }

  /**
   * @return the view applications see, made once, when first asked for
   */
  FenceLease view() {
    FenceLease v = view;
    if (v != null) {
      return v;
    }
    v = new FenceLease(this, fenceName, holderToken, holderLabel, fencingToken, acquiredAt, ttl);
    FenceLease won = (FenceLease) VIEW.compareAndExchange(this, null, v);
    return won != null ? won : v;
  }

  /**
   * @param ttl a lease's TTL
   * @param intervalNanos the fence's renewal interval; {@link Long#MAX_VALUE} for a third of the
   *     TTL
   * @return how often a lease of that TTL is renewed: the interval, at most a third of the TTL
   */
  static long renewIntervalNanos(Duration ttl, long intervalNanos) {
    return Math.min(ttl.toNanos() / 3, intervalNanos);
  }

  // Its entry on the thread's held-fence stack, in JDK types for every copy of core.

  public String fenceName() {
    return fenceName;
  }

  public Object domain() {
    return fence.store;
  }

  public String domainName() {
    return fence.store.exclusionDomain().orElse(null);
  }

  /** The stack entry's lease, and the lease the call acquired ({@link FencedCall#lease()}). */
  @Override
  public FenceLease lease() {
    return view();
  }

  public UUID holderToken() {
    return holderToken;
  }

  public String holderLabel() {
    return holderLabel;
  }

  /**
   * @return who took the lease ({@link HeldFenceStack.Entry#takenBy()}), or {@code null} before
   *     {@link #takenBy(String)}
   */
  public String takenBy() {
    return takenBy;
  }

  /**
   * Names who took the lease; called once, before its entry is pushed on the held-fence stack.
   *
   * @param taker the fenced method or the API's caller; {@code null} when unknown
   * @return this lease
   */
  HeldLease takenBy(String taker) {
    this.takenBy = taker;
    return this;
  }

  public long fencingToken() {
    return fencingToken;
  }

  public Instant acquiredAt() {
    return acquiredAt;
  }

  public Duration ttl() {
    return ttl;
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
    AT_SHUTDOWN.remove(this);
    if (fence.keeper.kept.remove(this)) {
      cancelTasks();
    }
    fence.keeper.lost(this, reason, fence.listener, this::tellLoss);
    return true;
  }

  /**
   * Asks to be told once of the loss: see {@link FenceLease#onLost}. A lease that is lost already
   * runs {@code callback} on this thread before this returns; a released one never runs it.
   *
   * @return cancels the request: {@code true} when the callback was dropped before it ran
   */
  @Override
  public BooleanSupplier onLost(Consumer<String> callback) {
    isValid(); // a lease whose time ran out is lost from now on
    LossWatch watch = new LossWatch(this, callback);
    String reason;
    synchronized (this) {
      reason = lostReason; // lost already: run now, not queued behind the notice
      if (reason == null && released) {
        return watch; // released and never lost: nothing will be told
      }
      if (reason == null) {
        if (lossWatches == null) {
          lossWatches = new ArrayList<>(2);
        }
        lossWatches.add(watch);
        return watch;
      }
    }
    watch.tell(reason);
    return watch;
  }

  /** The loss notice, off the renewal timer: every watch registered until now, once. */
  private void tellLoss() {
    List<LossWatch> watches;
    String reason = lostReason;
    synchronized (this) {
      watches = lossWatches;
      lossWatches = null;
    }
    if (watches != null) {
      for (LossWatch watch : watches) {
        watch.tell(reason);
      }
    }
  }

  /** Drops the watches of a lease released without being lost: a release is no loss. */
  private synchronized void dropWatchesUnlessLost() {
    if (lostReason == null) {
      lossWatches = null;
    }
  }

  private synchronized boolean removeWatch(LossWatch watch) {
    return lossWatches != null && lossWatches.remove(watch);
  }

  /**
   * Interrupts this thread, the one of the call that acquired, if the lease is lost before that
   * call ends ({@link FenceRequest.Builder#interruptOnLoss}).
   */
  void interruptOnLoss() {
    Interrupter i = new Interrupter(Thread.currentThread());
    interrupter = i;
    i.watch(onLost(i));
  }

  /** One request to be told of the loss: {@link FenceLease.Registration} to its holder. */
  private static final class LossWatch implements BooleanSupplier {
    private final HeldLease lease;
    private final Consumer<String> callback;

    LossWatch(HeldLease lease, Consumer<String> callback) {
      this.lease = lease;
      this.callback = callback;
    }

    void tell(String reason) {
      ListenerCalls.callback(() -> callback.accept(reason), lease.fenceName);
    }

    /** Cancels: {@code true} when dropped before it ran. */
    @Override
    public boolean getAsBoolean() {
      return lease.removeWatch(this);
    }
  }

  /**
   * The thread of a fenced call that asked to be interrupted when its lease is lost, while that
   * call runs: {@link #disarm} at the call's end, on its thread, and from then on the thread is
   * never interrupted by it (both hold this object's lock, so an interrupt is sent before the
   * call's end or never).
   */
  static final class Interrupter implements Consumer<String> {
    private final Thread thread;
    private boolean armed = true;
    private boolean interrupted; // this sent the interrupt
    private BooleanSupplier registration;

    Interrupter(Thread thread) {
      this.thread = thread;
    }

    synchronized void watch(BooleanSupplier registered) {
      registration = registered;
    }

    /** On the thread that tells of the loss. */
    @Override
    public synchronized void accept(String reason) {
      if (!armed) {
        return;
      }
      armed = false;
      if (!thread.isInterrupted()) { // interrupted already by someone else: theirs stays theirs
        interrupted = true;
        thread.interrupt();
      }
    }

    /**
     * On the call's own thread as it ends: never interrupts from now on, and clears an interrupt it
     * sent, so the thread's next work does not inherit it.
     */
    void disarm() {
      BooleanSupplier r;
      boolean clear;
      synchronized (this) {
        armed = false;
        clear = interrupted;
        interrupted = false;
        r = registration;
      }
      if (r != null) {
        r.getAsBoolean();
      }
      if (clear) {
        Thread.interrupted();
      }
    }
  }

  /**
   * Starts keeping this new lease: its renewal and deadline watch, and its release at JVM shutdown
   * when its fence asks for that. A lease that cannot be kept (the fence was closed) is released.
   *
   * @return this lease
   * @throws WriterFenceUnavailableException when the fence was closed
   */
  HeldLease hold() {
    boolean kept;
    try {
      kept = !fence.closed.get() && keep();
      if (kept && fence.releaseOnJvmShutdown) {
        AT_SHUTDOWN.add(this);
      }
    } catch (Throwable t) { // no timer thread (OutOfMemoryError): unwatched, so give it back now
      releaseAfter(t);
      throw t;
    }
    if (!kept || fence.closed.get()) { // close() may have missed it
      if (!released) {
        releaseAfter(null);
      }
      throw LeaseAcquirer.closedException(fenceName);
    }
    return this;
  }

  /**
   * @return the leases the JVM shutdown hook releases now
   */
  static Set<HeldLease> atShutdown() {
    return AT_SHUTDOWN;
  }

  /** Schedules the deadline watch and the first renewal; {@code false} when the fence closed. */
  private boolean keep() {
    LeaseKeeper keeper = fence.keeper;
    long interval = keeper.renews ? renewIntervalNanos(ttl, keeper.renewIntervalNanos) : 0;
    renewIntervalNanos = interval;
    keeper.kept.add(this);
    watchdog = schedule(this::watch, Math.max(0, nanosLeft()));
    if (watchdog == null) {
      keeper.kept.remove(this);
      return false;
    }
    if (interval > 0) {
      nextRenewal = schedule(this::renewSoon, interval);
    }
    return true;
  }

  /** On the fence's timer thread; {@code null} once the fence is closed. */
  private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    try {
      return fence.keeper.timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      return null;
    }
  }

  /** Cancels its scheduled renewal and deadline watch. */
  void cancelTasks() {
    ScheduledFuture<?> f = nextRenewal;
    if (f != null) {
      f.cancel(false);
    }
    f = watchdog;
    if (f != null) {
      f.cancel(false);
    }
  }

  /**
   * Stops keeping a lease that is being released: cancels its tasks and waits, at most {@code
   * maxWaitNanos}, for a renew statement already under way, so none follows the release.
   *
   * @return {@code false} when a renewal was still under way after the wait
   */
  private boolean stopKeeping(long maxWaitNanos) {
    AT_SHUTDOWN.remove(this);
    if (!fence.keeper.kept.remove(this)) {
      return true;
    }
    cancelTasks();
    try {
      if (renewing.tryLock(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS)) {
        cancelTasks(); // what a renewal under way scheduled meanwhile
        renewing.unlock();
        return true;
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** On the timer thread: hands the renew statement to a thread that may wait on the database. */
  private void renewSoon() {
    try {
      fence.keeper.statements.execute(this::renew);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** One renew statement; schedules the next one, or a quick retry after a failure. */
  private void renew() {
    renewing.lock();
    try {
      if (!isValid() || !fence.keeper.kept.contains(this)) {
        return; // released, lost or no longer kept: send nothing
      }
      long sent = System.nanoTime();
      Optional<Instant> expiry;
      try {
        expiry = handle.renew(ttl);
      } catch (RuntimeException e) {
        lastRenewalFailure = e;
        long retry = Math.max(MIN_RETRY_NANOS, Math.min(MAX_RETRY_NANOS, renewIntervalNanos / 4));
        LOG.debug(
            "writer-fence: renewal of fence '{}' failed; trying again in {} ms, {} ms before the"
                + " lease counts as lost",
            fenceName,
            TimeUnit.NANOSECONDS.toMillis(retry),
            TimeUnit.NANOSECONDS.toMillis(nanosLeft()),
            e);
        nextRenewal = schedule(this::renewSoon, retry);
        return;
      }
      if (expiry.isEmpty()) {
        markLost(
            "a renewal found it expired or taken over: the database no longer knows this holder"
                + " token as the fence's holder");
        return;
      }
      confirmRenewal(expiry.get(), sent);
      lastRenewalFailure = null;
      nextRenewal = schedule(this::renewSoon, renewIntervalNanos);
    } finally {
      renewing.unlock();
    }
  }

  /** On the timer thread, at the lease's deadline: lost unless a renewal moved it. */
  private void watch() {
    if (!fence.keeper.kept.contains(this)) {
      return; // released or lost meanwhile
    }
    long left = nanosLeft();
    if (left > 0) {
      watchdog = schedule(this::watch, left);
      return;
    }
    RuntimeException failure = lastRenewalFailure;
    markLost(
        failure != null
            ? "no renewal could reach the database before its TTL of "
                + ttl.toSeconds()
                + " s ran out (last failure: "
                + failure.getMessage()
                + ")"
            : renewIntervalNanos > 0
                ? "no renewal was confirmed before its TTL of "
                    + ttl.toSeconds()
                    + " s ran out (the process or the database was too slow, or paused)"
                : "its TTL of "
                    + ttl.toSeconds()
                    + " s ran out and renewal is off; another holder may take it over");
  }

  /** Tells the fence's listener, if it has one, of a release. */
  private void toldReleased(boolean freed) {
    FenceListener listener = fence.listener;
    if (listener != null) {
      FenceLease v = view();
      ListenerCalls.notify(() -> listener.released(v, freed));
    }
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
    if (deferRelease()) {
      return true; // released by the last joined call that still runs inside this hold
    }
    isValid(); // a lease whose time ran out is lost from now on
    boolean lost = lostReason != null;
    if (!RELEASED.compareAndSet(this, false, true)) {
      // Released already, here or by the shutdown hook racing a container's own close: one
      // release per lease, so no second statement, warning or listener call.
      return false;
    }
    stopKeeping(fence.renewalWaitNanos);
    dropWatchesUnlessLost();
    boolean freed;
    try {
      freed = fence.releaseRetry.executeSupplier(handle::release);
    } catch (RuntimeException e) {
      if (lost) {
        LOG.debug("writer-fence: release of lost fence '{}' failed", fenceName, e);
        toldReleased(false);
        return false;
      }
      if (!(e instanceof WriterFenceUnavailableException)
          && !(e instanceof TransientLeaseStoreException)) {
        // The store answered, but not with a release (an advisory unlock that found no lock):
        // for listeners and metrics that is a release that freed nothing.
        toldReleased(false);
      }
      if (e instanceof TransientLeaseStoreException t) {
        throw new WriterFenceUnavailableException(
            fenceName,
            "writer-fence: fence '"
                + fenceName
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
          "writer-fence: release of lost fence '{}' ({}) found another holder or a" + " free row",
          fenceName,
          FencingTokens.inWords(fencingToken));
    } else if (!freed) {
      LOG.warn(
          "writer-fence: release of fence '{}' ({}, holder '{}') found another holder"
              + " or a free row: the lease had expired",
          fenceName,
          FencingTokens.inWords(fencingToken),
          holderLabel);
    }
    toldReleased(freed);
    return freed;
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
      if (released || releaseDeferred) {
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
        LOG.warn(
            "writer-fence: release of fence '{}' ({}) failed; {}",
            fenceName,
            FencingTokens.inWords(fencingToken),
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
    stopKeeping(deadlineNanos - System.nanoTime());
    dropWatchesUnlessLost();
    try {
      toldReleased(handle.release());
    } catch (RuntimeException e) {
      LOG.warn(
          "writer-fence: at shutdown the release of fence '{}' ({}) failed; {}",
          fenceName,
          FencingTokens.inWords(fencingToken),
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
        + ttl.toSeconds()
        + " s (less a safety margin), counted on this JVM's monotonic clock from when the"
        + " statement was sent; another holder may take it over";
  }

  // The fenced call that acquired this lease.

  @Override
  public boolean joined() {
    return false;
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

  @Override
  public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
    // The hold on this thread ends here; an asynchronous body keeps its lease until its stage
    // completes.
    HeldFenceStack.pop(entry);
    Interrupter i = interrupter;
    if (i != null) {
      return exitInterruptible(i, returned, thrown, declaredReturnType);
    }
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

  /**
   * The exit of a call that asked to be interrupted on loss: the thread is never interrupted from
   * here on, the lease is released as usual, and a loss before this point ends the call in {@link
   * FenceLostException}.
   */
  private Object exitInterruptible(
      Interrupter i, Object returned, Throwable thrown, Class<?> declaredReturnType) {
    i.disarm();
    interrupter = null;
    isValid(); // a lease whose time ran out is lost from now on
    String reason = lostReason;
    if (reason == null) {
      return exit(returned, thrown, declaredReturnType);
    }
    FenceLostException lost = lostDuringTheCall(view(), reason, thrown);
    if (!released) {
      releaseAfter(lost);
    }
    throw lost;
  }

  /**
   * @return what a call that asked to be interrupted on loss ends with once its lease was lost: the
   *     body's own {@link FenceLostException} of that lease, or a new one with what the body threw
   *     as its cause
   */
  static FenceLostException lostDuringTheCall(FenceLease lease, String reason, Throwable thrown) {
    if (thrown instanceof FenceLostException own && own.fencingToken() == lease.rawFencingToken()) {
      return own;
    }
    return new FenceLostException(lease, reason + " (while the fenced call ran)", thrown);
  }

  /** A hold as the held-fence stack shows it to every copy of core, in JDK types. */
  private record StackEntry(HeldLease held) implements HeldFenceStack.Entry {
    @Override
    public String fenceName() {
      return held.fenceName();
    }

    @Override
    public Object domain() {
      return held.domain();
    }

    @Override
    public String domainName() {
      return held.domainName();
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
    public UUID holderToken() {
      return held.holderToken();
    }

    @Override
    public String holderLabel() {
      return held.holderLabel();
    }

    @Override
    public String takenBy() {
      return held.takenBy();
    }

    @Override
    public long fencingToken() {
      return held.fencingToken();
    }

    @Override
    public Instant acquiredAt() {
      return held.acquiredAt();
    }

    @Override
    public Instant expiresAt() {
      return held.expiresAt();
    }

    @Override
    public Duration ttl() {
      return held.ttl();
    }

    @Override
    public BooleanSupplier onLost(Consumer<String> callback) {
      return held.onLost(callback);
    }
  }

  /** What every joined call shares: it took no lease of its own and pushed no entry. */
  private abstract static class JoinedCall implements FencedCall {
    @Override
    public boolean joined() {
      return true;
    }

    @Override
    public FenceLease lease() {
      return null;
    }

    @Override
    public HeldFenceStack.Entry entry() {
      return null;
    }

    @Override
    public Object proceed(FencedInvocation invocation, Class<?> declaredReturnType)
        throws Throwable {
      return around(this, invocation, declaredReturnType);
    }
  }

  /**
   * A fenced call inside a hold this thread took before that asked to be interrupted on loss: it
   * releases nothing, interrupts its thread if the hold is lost while it runs, and then ends in
   * {@link FenceLostException}.
   */
  static final class JoinedInterruptible extends JoinedCall {
    private final FenceLease outer;
    private final Interrupter interrupter;
    private final Runnable unpin; // null: nothing pinned (another copy of core's hold)

    private JoinedInterruptible(FenceLease outer, Interrupter interrupter, Runnable unpin) {
      this.outer = outer;
      this.interrupter = interrupter;
      this.unpin = unpin;
    }

    /**
     * Joins a hold and, when this copy of core holds it, pins it as {@link Joined} does, so the
     * outer call's release waits for this call's work.
     *
     * @param outerEntry the hold it joins, found valid on this thread, of any copy of core
     * @return the joined call, or {@code null} when the hold ended meanwhile (acquire instead)
     * @throws UnsupportedOperationException when an older copy of core holds it, which cannot tell
     *     of a loss; the method must not run
     */
    static JoinedInterruptible of(HeldFenceStack.Entry outerEntry) {
      Runnable unpin = null;
      if (outerEntry instanceof StackEntry own) {
        unpin = own.held().pin();
        if (unpin == null) {
          return null;
        }
      }
      FenceLease outer = FenceLease.of(outerEntry);
      Interrupter i = new Interrupter(Thread.currentThread());
      FenceLease.Registration r;
      try {
        r = outer.onLost(lost -> i.accept(lost.reason()));
      } catch (RuntimeException | Error e) {
        if (unpin != null) {
          unpin.run();
        }
        throw e;
      }
      i.watch(r::cancel);
      return new JoinedInterruptible(outer, i, unpin);
    }

    @Override
    public FenceLease underLease() {
      return outer;
    }

    @Override
    public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
      interrupter.disarm();
      Joined.unpinWhenDone(unpin, returned, thrown);
      Optional<String> reason = outer.lostReason();
      if (reason.isPresent()) {
        throw lostDuringTheCall(outer, reason.get(), thrown);
      }
      return returned;
    }
  }

  /**
   * A fenced call inside a hold this thread took before: it releases nothing. Inside a hold of this
   * copy of core it pins that lease until its own work ends (a stage it returned completes, its
   * exit otherwise), so the outer call's release cannot leave that work unleased.
   */
  static final class Joined extends JoinedCall {
    private final HeldFenceStack.Entry outer;
    private final Runnable unpin; // null: nothing pinned (another copy of core's hold)

    private Joined(HeldFenceStack.Entry outer, Runnable unpin) {
      this.outer = outer;
      this.unpin = unpin;
    }

    /**
     * @param outer the hold to join, found valid on this thread
     * @return the joined call, or {@code null} when the hold ended meanwhile (acquire instead)
     */
    static Joined of(HeldFenceStack.Entry outer) {
      if (!(outer instanceof StackEntry own)) {
        return new Joined(outer, null);
      }
      Runnable unpin = own.held().pin();
      return unpin == null ? null : new Joined(outer, unpin);
    }

    /** The outer hold's lease: its loss is this call's loss too. */
    @Override
    public FenceLease underLease() {
      return FenceLease.of(outer);
    }

    @Override
    public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
      unpinWhenDone(unpin, returned, thrown);
      return returned;
    }

    /** Unpins once the joined work has ended: at once, or when a returned stage completes. */
    static void unpinWhenDone(Runnable unpin, Object returned, Throwable thrown) {
      if (unpin == null) {
        return;
      }
      if (thrown == null && returned instanceof CompletionStage<?> stage) {
        stage.whenComplete((value, failure) -> unpin.run());
      } else {
        unpin.run();
      }
    }
  }
}
