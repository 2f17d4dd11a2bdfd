package dev.writerfence;

import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.FlightRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The renewal threads of one {@link WriterFence} and the leases it keeps: each {@link
 * RenewingLease} schedules its own renewal and deadline watch here (through its {@link
 * RenewingLease.Context}), and is marked lost the moment a renewal finds it expired or taken over,
 * or no renewal confirmed it in time.
 *
 * <p>One timer thread per fence does the timing and never waits on the database; renew statements
 * run on a second pool whose threads exist only while a statement is under way. Both are daemon
 * threads named {@code writer-fence-renewal}, started with the first kept lease (the pools exist
 * from the start, their threads only once a task comes) and ending when idle. {@link #close}
 * rejects every task from then on, so nothing of a lease is scheduled after it.
 */
final class LeaseKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
  private static final String THREAD_NAME = "writer-fence-renewal";

  private final boolean renews;
  private final long renewIntervalNanos; // Long.MAX_VALUE: a third of each lease's TTL
  private final Set<RenewingLease> kept = ConcurrentHashMap.newKeySet();
  private final ScheduledThreadPoolExecutor timer;
  private final ThreadPoolExecutor statements;

  /**
   * @param renewInterval how often to renew, or {@code null} for a third of each lease's TTL
   * @param renews {@code false} to renew nothing (the deadline is still watched)
   */
  LeaseKeeper(Duration renewInterval, boolean renews) {
    this.renewIntervalNanos = renewInterval == null ? Long.MAX_VALUE : renewInterval.toNanos();
    this.renews = renews;
    ThreadFactory daemons =
        r -> {
          Thread t = new Thread(r, THREAD_NAME);
          t.setDaemon(true);
          return t;
        };
    timer = new ScheduledThreadPoolExecutor(1, daemons);
    timer.setRemoveOnCancelPolicy(true);
    timer.setKeepAliveTime(10, TimeUnit.SECONDS);
    timer.allowCoreThreadTimeOut(true);
    statements =
        new ThreadPoolExecutor(
            0, Integer.MAX_VALUE, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), daemons);
  }

  /**
   * What its leases are kept with: these threads and set, and the fence's release settings.
   *
   * @param releaseRetry repeats a release that failed transiently
   * @param renewalWaitNanos how long a release waits for a renew statement under way
   * @param listener told of releases and losses; {@code null} for none
   * @param releaseOnJvmShutdown whether the JVM shutdown hook releases the leases
   * @param closed the fence's closed flag
   * @return the context every lease of the fence is made with
   */
  RenewingLease.Context context(
      Retry releaseRetry,
      long renewalWaitNanos,
      FenceListener listener,
      boolean releaseOnJvmShutdown,
      AtomicBoolean closed) {
    return new RenewingLease.Context(
        timer,
        statements,
        kept,
        renews,
        renewIntervalNanos,
        releaseRetry,
        renewalWaitNanos,
        listener,
        releaseOnJvmShutdown,
        closed,
        this);
  }

  /**
   * @param ttl a lease's TTL
   * @return how often a lease of that TTL is renewed: the configured interval, at most a third of
   *     the TTL; empty when renewal is off
   */
  Optional<Duration> intervalFor(Duration ttl) {
    if (!renews) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofNanos(RenewingLease.renewIntervalNanos(ttl, renewIntervalNanos)));
  }

  /**
   * @return the leases kept now
   */
  List<HeldLease> leases() {
    List<HeldLease> holds = new ArrayList<>();
    for (RenewingLease lease : kept) {
      holds.add(lease.holder());
    }
    return holds;
  }

  /**
   * Tells of a lease that became lost (once, whoever found it): logs it, then runs {@code watches}
   * (what asked to be told: interrupts and {@link FenceLease#onLost} callbacks) and tells the
   * fence's listener, off the timer thread.
   */
  void lost(HeldLease k, String reason, FenceListener listener, Runnable watches) {
    LOG.warn(
        "writer-fence: lost the lease on fence '{}' ({}, holder '{}'): {}",
        k.fenceName(),
        FencingTokens.inWords(k.fencingToken()),
        k.holderLabel(),
        reason);
    if (FenceEvents.AVAILABLE && FlightRecorder.isInitialized()) { // JFR runs: a recording may ask
      FenceEvents.lost(k, reason);
    }
    Runnable call;
    if (listener == null) {
      call = watches;
    } else {
      FenceLease lease = k.view();
      call =
          () -> {
            watches.run();
            ListenerCalls.notify(() -> listener.lost(lease, reason));
          };
    }
    // Never on the timer thread: a slow listener or callback there would delay every other lease's
    // renewal past its TTL. The statement pool starts a thread per task and close() lets running
    // tasks finish, so a queued notice is not dropped either.
    if (!statements.isShutdown()) {
      try {
        statements.execute(call);
        return;
      } catch (RejectedExecutionException e) {
        // shutting down: tell them here
      }
    }
    call.run();
  }

  /** Stops both thread pools; keeps nothing from now on. Idempotent. */
  void close() {
    timer.shutdownNow();
    statements.shutdown();
    kept.forEach(RenewingLease::cancelTasks);
  }
}
