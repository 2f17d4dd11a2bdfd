package dev.writerfence;

import dev.writerfence.spi.StoreLease;
import io.github.resilience4j.retry.Retry;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import jdk.jfr.FlightRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store's lease, kept alive: a decorator of {@link StoreLease} (as ShedLock's {@code
 * KeepAliveLockProvider} wraps a {@code SimpleLock}) that renews it on its fence's {@link
 * LeaseKeeper} threads and declares it lost, and the one owner of whether the lease still holds.
 *
 * <p>The rules it keeps, which a plain keep-alive lacks:
 *
 * <ul>
 *   <li>the deadline is the TTL less a safety margin (a tenth of the TTL, at most 1 s), counted on
 *       the JVM's monotonic clock from when the last confirmed acquire or renew statement was
 *       <em>sent</em>, not answered;
 *   <li>a watchdog on the timer declares the lease lost at that deadline unless a renewal moved it,
 *       whether or not the database could be reached; {@link #isValid()} finds it lost too;
 *   <li>loss is told once, whoever finds it, and never for a released lease: the {@link
 *       FenceLease#onLost} callbacks and the listener, off the timer thread;
 *   <li>only the call that asked for it ({@link FenceRequest.Builder#interruptOnLoss}) has its
 *       thread interrupted, and never after that call ended ({@link Interrupter}).
 * </ul>
 *
 * <p>Its {@link HeldLease} is told of the loss (it gives the turn back) and names the lease in the
 * log and to the listener.
 */
final class RenewingLease implements StoreLease {
  private static final Logger LOG = LoggerFactory.getLogger(RenewingLease.class);
  private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final VarHandle RELEASED;
  private static final VarHandle LOST_REASON;
  private static final VarHandle RECORDING;

  /** The leases of fences that release at JVM shutdown, until released or lost. */
  private static final Set<RenewingLease> AT_SHUTDOWN = ConcurrentHashMap.newKeySet();

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      RELEASED = lookup.findVarHandle(RenewingLease.class, "released", boolean.class);
      LOST_REASON = lookup.findVarHandle(RenewingLease.class, "lostReason", String.class);
      RECORDING = lookup.findVarHandle(RenewingLease.class, "recording", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final StoreLease lease;
  private final HeldLease holder;
  private final Context keeper; // its fence's
  private final Duration ttl;
  private final long validNanos;
  private volatile Instant expiresAt;
  private volatile long validUntilNanos;
  private volatile boolean released;
  private volatile String lostReason;
  private boolean lostAtRelease; // lost when its release began: written and read by that release
  private Object recording; // JFR's hold event, begun at the grant; null: not recorded

  // Its renewal: tasks on the keeper's threads.
  private final ReentrantLock renewing = new ReentrantLock();
  private long renewIntervalNanos; // 0: not renewed; set before the first task is scheduled
  private volatile ScheduledFuture<?> nextRenewal;
  private volatile ScheduledFuture<?> watchdog;
  private volatile RuntimeException lastRenewalFailure;

  // What runs once when it is lost (FenceLease.onLost, interrupts): guarded by this object.
  private List<LossWatch> lossWatches; // null until the first, and again once told or released
  private Interrupter interrupter; // the acquiring call's, when it asked to be interrupted

  /**
   * @param lease the store's lease
   * @param holder the hold it is the lease of, told of its loss
   * @param keeper its fence's renewal threads
   * @param ttl the TTL it was acquired with
   * @param expiresAt its expiry as the store answered it (read once, with its grant)
   * @param sentNanos {@link System#nanoTime()} taken before the earliest acquire statement that may
   *     have granted it was sent
   */
  RenewingLease(
      StoreLease lease,
      HeldLease holder,
      Context keeper,
      Duration ttl,
      Instant expiresAt,
      long sentNanos) {
    this.lease = lease;
    this.holder = holder;
    this.keeper = keeper;
    this.ttl = ttl;
    long ttlNanos = ttl.toNanos();
    this.validNanos = ttlNanos - Math.min(ttlNanos / 10, 1_000_000_000L);
    this.expiresAt = expiresAt;
    this.validUntilNanos = sentNanos + validNanos;
    if (FenceEvents.AVAILABLE && FlightRecorder.isInitialized()) { // JFR runs: a recording may ask
      this.recording = FenceEvents.hold();
    }
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

  /**
   * @return the leases the JVM shutdown hook releases now
   */
  static Set<RenewingLease> atShutdown() {
    return AT_SHUTDOWN;
  }

  /**
   * Starts keeping it: the deadline watch, the first renewal, and its release at JVM shutdown when
   * its fence asks for that.
   *
   * @return {@code false} when the fence was closed: nothing is scheduled
   */
  boolean keep() {
    if (keeper.closed().get()) {
      return false;
    }
    long interval = keeper.renews() ? renewIntervalNanos(ttl, keeper.renewIntervalNanos()) : 0;
    renewIntervalNanos = interval;
    keeper.kept().add(this);
    watchdog = schedule(this::watch, Math.max(0, nanosLeft()));
    if (watchdog == null) {
      keeper.kept().remove(this);
      return false;
    }
    if (interval > 0) {
      nextRenewal = schedule(this::renewSoon, interval);
    }
    if (keeper.releaseOnJvmShutdown()) {
      AT_SHUTDOWN.add(this);
    }
    return !keeper.closed().get(); // close() may have missed it
  }

  /**
   * @return the hold this is the lease of
   */
  HeldLease holder() {
    return holder;
  }

  @Override
  public long fencingToken() {
    return lease.fencingToken();
  }

  @Override
  public Instant acquiredAt() {
    return lease.acquiredAt();
  }

  /**
   * @return the latest confirmed expiry, database clock
   */
  @Override
  public Instant expiresAt() {
    return expiresAt;
  }

  /** One renew statement, as the store's lease sends it. */
  @Override
  public Optional<Instant> renew(Duration newTtl) {
    return lease.renew(newTtl);
  }

  /**
   * The release of a hold: marked released first (so it is valid no more and never lost), its
   * renewal stopped (a renew statement under way is waited for, so none follows), then one release
   * statement, transient errors retried by the fence's release retry. The listener is told.
   *
   * <p>A lost lease is released too (harmless: another holder's row is never freed); its loss was
   * logged already, so neither a {@code false} answer nor a failure is logged again, and a failure
   * is answered {@code false} instead of thrown.
   *
   * @return {@code true} when freed; {@code false} when it had expired and another holder took it
   *     over, or it was released already (nothing is sent then)
   * @throws WriterFenceUnavailableException when the database cannot be reached, or kept failing
   *     transiently, while the lease was not lost
   */
  @Override
  public boolean release() {
    return markReleasing() && releaseMarked();
  }

  /**
   * The first step of {@link #release()}: a lease whose time ran out is found lost, then it is
   * marked released, once.
   *
   * @return {@code false} when it was released already, here or by the shutdown hook racing a
   *     container's own close: one release per lease, so no second statement, warning or listener
   *     call, and its hold gives nothing back
   */
  boolean markReleasing() {
    isValid(); // a lease whose time ran out is lost from now on
    lostAtRelease = lostReason != null;
    return markReleased();
  }

  /** The rest of {@link #release()}, after {@link #markReleasing()} answered {@code true}. */
  boolean releaseMarked() {
    boolean lost = lostAtRelease;
    stopKeeping(keeper.renewalWaitNanos());
    // Read before the statement: no step of this class follows it unless there is more to tell.
    FenceListener listener = keeper.listener();
    Retry retry = keeper.releaseRetry();
    boolean freed;
    try {
      freed = retry.executeSupplier(lease::release);
    } catch (RuntimeException e) {
      return ReleaseOutcomes.failed(holder, e, lost, listener, expiresAt);
    }
    if (!freed || listener != null) {
      ReleaseOutcomes.released(holder, freed, lost, listener);
    }
    return freed;
  }

  /**
   * The shutdown hook's release: one statement, no retry, after waiting for a renewal under way
   * until {@code deadlineNanos} at most. Logs and swallows any failure.
   */
  void releaseBefore(long deadlineNanos) {
    if (!markReleased()) {
      return;
    }
    stopKeeping(deadlineNanos - System.nanoTime());
    try {
      ReleaseOutcomes.told(holder, keeper.listener(), lease.release());
    } catch (RuntimeException e) {
      ReleaseOutcomes.failedAtShutdown(holder, e, expiresAt);
    }
  }

  /**
   * Marks it released, once: from then on it is neither valid nor ever lost, and callbacks waiting
   * for a loss are dropped.
   *
   * @return {@code false} when it was released already
   */
  private boolean markReleased() {
    if (!RELEASED.compareAndSet(this, false, true)) {
      return false;
    }
    if (recording != null) {
      endHold("released");
    }
    dropWatchesUnlessLost();
    return true;
  }

  /** Ends the recorded hold once, at its release or its loss, whichever comes first. */
  private void endHold(String end) {
    Object begun = RECORDING.getAndSet(this, null);
    if (begun != null) {
      FenceEvents.held(begun, holder, end);
    }
  }

  /**
   * @return {@code true} once a release was made or begun
   */
  boolean isReleased() {
    return released;
  }

  /** See {@link FenceLease#isValid()}. */
  boolean isValid() {
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
   * @return why it was lost, or {@code null}
   */
  String lostReason() {
    return lostReason;
  }

  /**
   * @return nanoseconds from now until it stops being valid by the monotonic clock
   */
  long nanosLeft() {
    return validUntilNanos - System.nanoTime();
  }

  /**
   * Marks it lost, once: a released lease is not lost. Stops its renewal, tells its hold, and tells
   * of the loss off the timer thread.
   *
   * @return {@code true} when this call made it lost
   */
  boolean markLost(String reason) {
    if (released || !LOST_REASON.compareAndSet(this, null, reason)) {
      return false;
    }
    AT_SHUTDOWN.remove(this);
    if (recording != null) {
      endHold("lost");
    }
    if (keeper.kept().remove(this)) {
      cancelTasks();
    }
    holder.lost(); // the next thread of this fence may ask the database: the row decides
    keeper.keeper().lost(holder, reason, keeper.listener(), this::tellLoss);
    return true;
  }

  /**
   * Asks to be told once of the loss: see {@link FenceLease#onLost}. A lease that is lost already
   * runs {@code callback} on this thread before this returns; a released one never runs it.
   *
   * @return cancels the request: {@code true} when the callback was dropped before it ran
   */
  BooleanSupplier onLost(Consumer<String> callback) {
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

  /**
   * Interrupts this thread, the one of the call that acquired, if the lease is lost before that
   * call ends ({@link FenceRequest.Builder#interruptOnLoss}).
   */
  void interruptOnLoss() {
    Interrupter i = new Interrupter(Thread.currentThread());
    interrupter = i;
    i.watch(onLost(i));
  }

  /**
   * At the end of the acquiring call: never interrupts its thread from now on.
   *
   * @return whether that call had asked to be interrupted
   */
  boolean disarm() {
    Interrupter i = interrupter;
    if (i == null) {
      return false;
    }
    i.disarm();
    interrupter = null;
    return true;
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

  /** One request to be told of the loss: {@link FenceLease.Registration} to its holder. */
  private static final class LossWatch implements BooleanSupplier {
    private final RenewingLease lease;
    private final Consumer<String> callback;

    LossWatch(RenewingLease lease, Consumer<String> callback) {
      this.lease = lease;
      this.callback = callback;
    }

    void tell(String reason) {
      ListenerCalls.callback(() -> callback.accept(reason), lease.holder.fenceName());
    }

    /** Cancels: {@code true} when dropped before it ran. */
    @Override
    public boolean getAsBoolean() {
      return lease.removeWatch(this);
    }
  }

  /** On the fence's timer thread; {@code null} once the fence is closed. */
  private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    try {
      return keeper.timer().schedule(task, delayNanos, TimeUnit.NANOSECONDS);
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
   */
  private void stopKeeping(long maxWaitNanos) {
    AT_SHUTDOWN.remove(this);
    if (!keeper.kept().remove(this)) {
      return;
    }
    cancelTasks();
    try {
      if (renewing.tryLock(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS)) {
        cancelTasks(); // what a renewal under way scheduled meanwhile
        renewing.unlock();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** On the timer thread: hands the renew statement to a thread that may wait on the database. */
  private void renewSoon() {
    try {
      keeper.statements().execute(this::renewOnce);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** One renew statement; schedules the next one, or a quick retry after a failure. */
  private void renewOnce() {
    renewing.lock();
    try {
      if (!isValid() || !keeper.kept().contains(this)) {
        return; // released, lost or no longer kept: send nothing
      }
      long sent = System.nanoTime();
      Optional<Instant> expiry;
      try {
        expiry = lease.renew(ttl);
      } catch (RuntimeException e) {
        lastRenewalFailure = e;
        long retry = Math.max(MIN_RETRY_NANOS, Math.min(MAX_RETRY_NANOS, renewIntervalNanos / 4));
        LOG.debug(
            "writer-fence: renewal of fence '{}' failed; trying again in {} ms, {} ms before the"
                + " lease counts as lost",
            holder.fenceName(),
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
      // Counted from when the statement was sent: the database may have confirmed it any time
      // after.
      this.validUntilNanos = sent + validNanos;
      this.expiresAt = expiry.get();
      lastRenewalFailure = null;
      nextRenewal = schedule(this::renewSoon, renewIntervalNanos);
    } finally {
      renewing.unlock();
    }
  }

  /** On the timer thread, at the lease's deadline: lost unless a renewal moved it. */
  private void watch() {
    if (!keeper.kept().contains(this)) {
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

  private String timeRanOut() {
    return "no acquire or renewal confirmed the lease within its TTL of "
        + ttl.toSeconds()
        + " s (less a safety margin), counted on this JVM's monotonic clock from when the"
        + " statement was sent; another holder may take it over";
  }

  /**
   * What the leases of one {@link WriterFence} are kept with, made once with the fence: its {@link
   * LeaseKeeper}'s threads and set of kept leases, and the fence's release settings.
   *
   * @param timer the fence's renewal timer (never waits on the database)
   * @param statements runs renew statements and loss notices
   * @param kept the leases kept now: renewed and watched
   * @param renews {@code false} to renew nothing (the deadline is still watched)
   * @param renewIntervalNanos how often to renew; {@link Long#MAX_VALUE} for a third of the TTL
   * @param releaseRetry repeats a release that failed transiently
   * @param renewalWaitNanos how long a release waits for a renew statement under way
   * @param listener told of releases and losses; {@code null} for none
   * @param releaseOnJvmShutdown whether the JVM shutdown hook releases the leases
   * @param closed the fence's closed flag: a lease of a closed fence is not kept
   * @param keeper the threads' owner, which tells of a loss
   */
  record Context(
      ScheduledExecutorService timer,
      Executor statements,
      Set<RenewingLease> kept,
      boolean renews,
      long renewIntervalNanos,
      Retry releaseRetry,
      long renewalWaitNanos,
      FenceListener listener,
      boolean releaseOnJvmShutdown,
      AtomicBoolean closed,
      LeaseKeeper keeper) {}
}
