package dev.writerfence;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the held leases of one {@link WriterFence}: renews each in the background, watches its
 * deadline on the JVM's monotonic clock, and marks it lost the moment a renewal finds it expired or
 * taken over, or no renewal confirmed it in time.
 *
 * <p>One timer thread per fence does the timing and never waits on the database; renew statements
 * run on a second pool whose threads exist only while a statement is under way. Both are daemon
 * threads named {@code writer-fence-renewal}, started with the first kept lease and ending when
 * idle. Nothing of a lease is scheduled once it is released or lost: {@link #stop} cancels its
 * tasks and waits for a renewal already under way, so no renew statement is sent after it returns.
 */
final class LeaseKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseKeeper.class);
  private static final String THREAD_NAME = "writer-fence-renewal";
  private static final long MIN_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long MAX_RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Duration renewInterval; // null: a third of each lease's TTL
  private final boolean renews;
  private final FenceListener listener;
  private final Set<HeldLease> kept = ConcurrentHashMap.newKeySet();
  private ScheduledThreadPoolExecutor timer; // guarded by this
  private ThreadPoolExecutor statements; // guarded by this
  private boolean closed; // guarded by this

  /**
   * @param renewInterval how often to renew, or {@code null} for a third of each lease's TTL
   * @param renews {@code false} to renew nothing (the deadline is still watched)
   */
  LeaseKeeper(Duration renewInterval, boolean renews, FenceListener listener) {
    this.renewInterval = renewInterval;
    this.renews = renews;
    this.listener = listener;
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
    Duration third = ttl.dividedBy(3);
    return Optional.of(
        renewInterval == null || renewInterval.compareTo(third) > 0 ? third : renewInterval);
  }

  /**
   * Starts keeping a lease whose deadline its acquire set.
   *
   * @return {@code false} when the keeper is closed; nothing was started
   */
  boolean keep(HeldLease k) {
    long interval = intervalFor(k.view.ttl()).map(Duration::toNanos).orElse(0L);
    k.renewIntervalNanos = interval;
    synchronized (this) {
      if (closed) {
        return false;
      }
      startThreads();
      kept.add(k);
      k.watchdog = schedule(() -> watch(k), Math.max(0, k.nanosLeft()));
      if (interval > 0) {
        k.nextRenewal = schedule(() -> renewSoon(k), interval);
      }
    }
    return true;
  }

  private static void cancel(HeldLease k) {
    ScheduledFuture<?> f = k.nextRenewal;
    if (f != null) {
      f.cancel(false);
    }
    f = k.watchdog;
    if (f != null) {
      f.cancel(false);
    }
  }

  /**
   * Stops keeping a lease that was released: cancels its tasks and waits, at most {@code
   * maxWaitNanos}, for a renew statement already under way, so none follows the release.
   *
   * @return {@code false} when a renewal was still under way after the wait
   */
  boolean stop(HeldLease k, long maxWaitNanos) {
    if (!kept.remove(k)) {
      return true;
    }
    cancel(k);
    try {
      if (k.renewing.tryLock(Math.max(0, maxWaitNanos), TimeUnit.NANOSECONDS)) {
        cancel(k); // what a renewal under way scheduled meanwhile
        k.renewing.unlock();
        return true;
      }
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * @return the leases kept now
   */
  List<HeldLease> leases() {
    return List.copyOf(kept);
  }

  /** Called once by a lease that became lost, on whatever thread found it. */
  void lost(HeldLease k, String reason) {
    if (kept.remove(k)) {
      cancel(k);
    }
    ShutdownHook.forget(k);
    FenceLease lease = k.view;
    LOG.warn(
        "writer-fence: lost the lease on fence '{}' (fencing token {}, holder '{}'): {}",
        lease.fenceName(),
        lease.fencingToken(),
        lease.holderLabel(),
        reason);
    Runnable call = () -> ListenerCalls.notify(() -> listener.lost(lease, reason));
    synchronized (this) {
      // Never on the timer thread: a slow listener there would delay every other lease's renewal
      // past its TTL. The statement pool starts a thread per task and close() lets running tasks
      // finish, so a queued notice is not dropped either.
      if (statements != null && !statements.isShutdown()) {
        try {
          statements.execute(call);
          return;
        } catch (RejectedExecutionException e) {
          // shutting down: tell the listener here
        }
      }
    }
    call.run();
  }

  /** Stops both thread pools; keeps nothing from now on. Idempotent. */
  synchronized void close() {
    closed = true;
    kept.forEach(LeaseKeeper::cancel);
    if (timer != null) {
      timer.shutdownNow();
      statements.shutdown();
    }
  }

  private void startThreads() {
    if (timer != null) {
      return;
    }
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

  private ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
    synchronized (this) {
      if (closed) {
        return null;
      }
      return timer.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** On the timer thread: hands the renew statement to a thread that may wait on the database. */
  private void renewSoon(HeldLease k) {
    try {
      synchronized (this) {
        if (closed) {
          return;
        }
        statements.execute(() -> renew(k));
      }
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** One renew statement; schedules the next one, or a quick retry after a failure. */
  private void renew(HeldLease k) {
    FenceLease lease = k.view;
    k.renewing.lock();
    try {
      if (!k.isValid() || !kept.contains(k)) {
        return; // released, lost or no longer kept: send nothing
      }
      long sent = System.nanoTime();
      Optional<Instant> expiry;
      try {
        expiry = k.handle.renew(lease.ttl());
      } catch (RuntimeException e) {
        k.lastRenewalFailure = e;
        long retry = Math.max(MIN_RETRY_NANOS, Math.min(MAX_RETRY_NANOS, k.renewIntervalNanos / 4));
        LOG.debug(
            "writer-fence: renewal of fence '{}' failed; trying again in {} ms, {} ms before the"
                + " lease counts as lost",
            lease.fenceName(),
            TimeUnit.NANOSECONDS.toMillis(retry),
            TimeUnit.NANOSECONDS.toMillis(k.nanosLeft()),
            e);
        k.nextRenewal = schedule(() -> renewSoon(k), retry);
        return;
      }
      if (expiry.isEmpty()) {
        k.markLost(
            "a renewal found it expired or taken over: the database no longer knows this holder"
                + " token as the fence's holder");
        return;
      }
      k.confirmRenewal(expiry.get(), sent);
      k.lastRenewalFailure = null;
      k.nextRenewal = schedule(() -> renewSoon(k), k.renewIntervalNanos);
    } finally {
      k.renewing.unlock();
    }
  }

  /** On the timer thread, at the lease's deadline: lost unless a renewal moved it. */
  private void watch(HeldLease k) {
    FenceLease lease = k.view;
    if (!kept.contains(k)) {
      return; // released or lost meanwhile
    }
    long left = k.nanosLeft();
    if (left > 0) {
      k.watchdog = schedule(() -> watch(k), left);
      return;
    }
    RuntimeException failure = k.lastRenewalFailure;
    k.markLost(
        failure != null
            ? "no renewal could reach the database before its TTL of "
                + lease.ttl().toSeconds()
                + " s ran out (last failure: "
                + failure.getMessage()
                + ")"
            : k.renewIntervalNanos > 0
                ? "no renewal was confirmed before its TTL of "
                    + lease.ttl().toSeconds()
                    + " s ran out (the process or the database was too slow, or paused)"
                : "its TTL of "
                    + lease.ttl().toSeconds()
                    + " s ran out and renewal is off; another holder may take it over");
  }
}
