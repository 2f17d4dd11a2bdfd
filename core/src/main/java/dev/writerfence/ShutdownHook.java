package dev.writerfence;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every lease this process holds, across all {@link WriterFence}s, and the one JVM shutdown hook
 * that releases them: a SIGTERM or {@code docker stop} in the middle of a fenced pass frees the
 * fence at once instead of leaving it held until its TTL runs out.
 *
 * <p>The hook is registered when the first fence that releases at shutdown is built, not when the
 * class loads. The leases themselves are {@link RenewingLease#atShutdown()}: each lease joins that
 * set when it is kept and leaves it when released or lost, so a fenced call runs no code of this
 * class. The hook releases all of them in parallel, one statement each, and gives up after {@link
 * #SHUTDOWN_BUDGET}: a lease it could not release frees itself at its expiry. A fence is referenced
 * from here only while it holds a lease.
 */
final class ShutdownHook {
  private static final Logger LOG = LoggerFactory.getLogger(ShutdownHook.class);

  /** How long the shutdown hook may take in all. */
  static final Duration SHUTDOWN_BUDGET = Duration.ofSeconds(2);

  private static boolean hookAdded; // guarded by ShutdownHook.class

  private ShutdownHook() {}

  /** Registers the JVM shutdown hook, once per process. */
  static synchronized void addHookOnce() {
    if (hookAdded) {
      return;
    }
    hookAdded = true;
    try {
      Runtime.getRuntime()
          .addShutdownHook(new Thread(() -> releaseAll(SHUTDOWN_BUDGET), "writer-fence-shutdown"));
    } catch (IllegalStateException e) {
      // the JVM is shutting down already: nothing can be registered any more
    }
  }

  /**
   * Releases every lease still held, in parallel, within {@code budget}.
   *
   * @return how many leases were released within the budget
   */
  static int releaseAll(Duration budget) {
    long deadline = System.nanoTime() + budget.toNanos();
    List<Thread> releases = new ArrayList<>();
    for (RenewingLease lease : RenewingLease.atShutdown()) {
      Thread t = new Thread(() -> lease.releaseBefore(deadline), "writer-fence-shutdown-release");
      t.setDaemon(true);
      t.start();
      releases.add(t);
    }
    int done = 0;
    for (Thread t : releases) {
      try {
        t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
        break;
      }
      if (!t.isAlive()) {
        done++;
      }
    }
    if (done < releases.size()) {
      LOG.warn(
          "writer-fence: at shutdown {} of {} leases could not be released within {} ms; they free"
              + " themselves at their expiry",
          releases.size() - done,
          releases.size(),
          budget.toMillis());
    }
    return done;
  }
}
