package dev.writerfence.store.lease;

import dev.writerfence.spi.ReleaseSignal;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease row's {@link ReleaseSignal}: one daemon thread per store that, while writers of this
 * process wait in a queue, holds one connection with {@code LISTEN writer_fence_release} (sent by a
 * release that found waiters, contract version 2) and wakes them at each notification. It takes its
 * connection only while someone waits (and a few seconds after), so an idle fence holds no extra
 * connection.
 *
 * <p>Only on a direct connection: behind a transaction pooler (PgBouncer in transaction mode) the
 * server session that ran {@code LISTEN} is shared, its notifications reach other clients or
 * nobody, and pgjdbc keeps notifications it was sent on a pooled connection until someone reads
 * them. Hence off by default ({@code queue.listen}).
 */
final class ReleaseListener implements ReleaseSignal {
  private static final Logger LOG = LoggerFactory.getLogger(ReleaseListener.class);
  private static final String CHANNEL = "writer_fence_release";
  private static final int RECEIVE_MILLIS = 250;
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final DataSource dataSource;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Guarded by lock.
  private long signals;
  private int waiting;
  private long lastWaitNanos;
  private boolean listening;
  private boolean closed;
  private Thread thread;

  ReleaseListener(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  @Override
  public long seen() {
    lock.lock();
    try {
      return signals;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean awaitAfter(long seen, long timeoutNanos) throws InterruptedException {
    lock.lock();
    try {
      if (closed) {
        return true;
      }
      startIfNeeded();
      if (!listening) {
        return true; // nothing can be heard now: poll on schedule
      }
      waiting++;
      try {
        long left = timeoutNanos;
        while (signals == seen && listening && !closed) {
          if (left <= 0) {
            return false;
          }
          left = changed.awaitNanos(left);
        }
        return true;
      } finally {
        waiting--;
        lastWaitNanos = System.nanoTime();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    Thread t;
    lock.lock();
    try {
      closed = true;
      t = thread;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (t != null) {
      t.interrupt();
    }
  }

  /**
   * @return whether the listener holds its connection with LISTEN now (for tests)
   */
  boolean isListening() {
    lock.lock();
    try {
      return listening;
    } finally {
      lock.unlock();
    }
  }

  /** Called with the lock held. */
  private void startIfNeeded() {
    lastWaitNanos = System.nanoTime();
    if (!listening) {
      changed.signalAll(); // a listener parked for want of waiters connects again
    }
    if (thread == null) {
      thread = new Thread(this::run, "writer-fence-release-listener");
      thread.setDaemon(true);
      thread.start();
      // The first wait returns at once: the listener is not connected before its thread runs.
    }
  }

  private void run() {
    while (!isClosed()) {
      if (!awaitDemand()) {
        return;
      }
      try (Connection connection = dataSource.getConnection()) {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = connection.unwrap(PGConnection.class);
        setListening(true);
        while (!isClosed() && !idle()) {
          PGNotification[] received = pg.getNotifications(RECEIVE_MILLIS);
          if (received != null && received.length > 0) {
            signal();
          }
        }
        try (Statement statement = connection.createStatement()) {
          statement.execute("UNLISTEN " + CHANNEL);
        }
      } catch (SQLException | RuntimeException e) {
        if (isClosed()) {
          return;
        }
        LOG.debug("writer-fence: release listener lost its connection; waiters poll meanwhile", e);
        setListening(false);
        try {
          TimeUnit.NANOSECONDS.sleep(RETRY_NANOS);
        } catch (InterruptedException interrupted) {
          return; // closed
        }
      } finally {
        setListening(false);
      }
    }
  }

  /** Waits until a writer waits again; {@code false} once closed. */
  private boolean awaitDemand() {
    lock.lock();
    try {
      while (!closed && waiting == 0 && System.nanoTime() - lastWaitNanos > IDLE_NANOS) {
        changed.await();
      }
      return !closed;
    } catch (InterruptedException e) {
      return false;
    } finally {
      lock.unlock();
    }
  }

  private boolean idle() {
    lock.lock();
    try {
      return waiting == 0 && System.nanoTime() - lastWaitNanos > IDLE_NANOS;
    } finally {
      lock.unlock();
    }
  }

  private void signal() {
    lock.lock();
    try {
      signals++;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void setListening(boolean on) {
    lock.lock();
    try {
      listening = on;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }
}
