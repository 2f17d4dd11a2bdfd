package dev.writerfence.store.lease;

import dev.writerfence.spi.ReleaseSignal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import javax.sql.DataSource;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listening behind every {@link ReleaseListener} of one data source (or one {@code
 * queue.listen-url}) in this process: one daemon thread that, while writers of this process wait in
 * a queue, holds one connection with {@code LISTEN writer_fence_release} (sent by a release that
 * found waiters, contract version 2) and wakes them at each notification. It takes its connection
 * only while someone waits (and a few seconds after), so an idle process holds no extra connection.
 *
 * <p>The first time it listens it proves that notifications arrive ({@link ReleaseSignal.Mode}): it
 * sends itself a probe notification through the statements' data source and waits {@link
 * #PROBE_NANOS} for it. Behind a transaction pooler (PgBouncer in transaction mode) the server
 * session that ran {@code LISTEN} is shared and its notifications reach other clients or nobody, so
 * the probe gets no answer: the listener then logs why, once, gives its connection back and stays
 * {@code polled} for as long as it is shared.
 */
final class SharedReleaseListener {
  private static final Logger LOG = LoggerFactory.getLogger(ReleaseListener.class);
  static final String CHANNEL = "writer_fence_release";

  /** How long the probe waits for its own notification. */
  static final long PROBE_NANOS = TimeUnit.SECONDS.toNanos(1);

  private static final String PROBE_PREFIX = "{\"probe\":";

  /** Where the listener's connection comes from. */
  @FunctionalInterface
  interface Connector {
    Connection connect() throws SQLException;
  }

  private static final int RECEIVE_MILLIS = 250;
  private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);
  private static final long RETRY_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Connector connector;
  private final DataSource statements;
  private final String where; // for the logs: the listen-url, or "the fence's data source"
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Guarded by lock.
  private long signals;
  private int waiting;
  private long lastWaitNanos;
  private boolean listening;
  private boolean closed;
  private Thread thread;
  private ReleaseSignal.Mode mode = ReleaseSignal.Mode.PENDING;
  private boolean connectFailureLogged;

  /**
   * @param connector the listening connection
   * @param statements the fence's statements' data source, which the probe is sent through
   * @param where names the listening connection in logs
   */
  SharedReleaseListener(Connector connector, DataSource statements, String where) {
    this.connector = connector;
    this.statements = statements;
    this.where = where;
  }

  ReleaseSignal.Mode mode() {
    lock.lock();
    try {
      return mode;
    } finally {
      lock.unlock();
    }
  }

  boolean hearing() {
    lock.lock();
    try {
      return listening && mode == ReleaseSignal.Mode.NOTIFIED;
    } finally {
      lock.unlock();
    }
  }

  long seen() {
    lock.lock();
    try {
      return signals;
    } finally {
      lock.unlock();
    }
  }

  boolean awaitAfter(long seen, long timeoutNanos) throws InterruptedException {
    lock.lock();
    try {
      if (closed) {
        return true;
      }
      startIfNeeded();
      if (!listening || mode != ReleaseSignal.Mode.NOTIFIED) {
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

  void close() {
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
   * @return whether the listener holds its connection with LISTEN now, its probe answered
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
    if (thread == null && mode != ReleaseSignal.Mode.POLLED) {
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
      try (Connection connection = connector.connect()) {
        connection.setAutoCommit(true);
        try (Statement statement = connection.createStatement()) {
          statement.execute("LISTEN " + CHANNEL);
        }
        PGConnection pg = connection.unwrap(PGConnection.class);
        if (mode() == ReleaseSignal.Mode.PENDING && !probe(pg)) {
          try (Statement statement = connection.createStatement()) {
            statement.execute("UNLISTEN " + CHANNEL);
          }
          return; // polled from now on: the thread ends and its connection goes back
        }
        setListening(true);
        while (!isClosed() && !idle()) {
          PGNotification[] received = pg.getNotifications(RECEIVE_MILLIS);
          if (received != null && releases(received, null) > 0) {
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
        logConnectFailure(e);
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

  /**
   * Proves that notifications reach this connection: sends a probe notification through the
   * statements' data source (the path a release's notification takes) and waits for it. Sets the
   * mode and logs it once. A release heard meanwhile still wakes the waiters.
   *
   * @return whether the probe arrived
   */
  private boolean probe(PGConnection pg) throws SQLException {
    String payload = PROBE_PREFIX + "\"" + UUID.randomUUID() + "\"}";
    try (Connection sender = statements.getConnection()) {
      boolean autoCommit = sender.getAutoCommit();
      if (!autoCommit) {
        sender.setAutoCommit(true); // the notification goes out at commit
      }
      try (PreparedStatement notify = sender.prepareStatement("SELECT pg_notify(?, ?)")) {
        notify.setString(1, CHANNEL);
        notify.setString(2, payload);
        notify.execute();
      } finally {
        if (!autoCommit) {
          sender.setAutoCommit(false);
        }
      }
    }
    long deadline = System.nanoTime() + PROBE_NANOS;
    boolean arrived = false;
    long left;
    while (!arrived && (left = deadline - System.nanoTime()) > 0 && !isClosed()) {
      PGNotification[] received =
          pg.getNotifications((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
      if (received == null) {
        continue;
      }
      boolean[] mine = {false};
      if (releases(received, payload, mine) > 0) {
        signal();
      }
      arrived = mine[0];
    }
    lock.lock();
    try {
      // Listening and proved at once: a waiter that sees the mode can rely on being woken.
      listening = arrived;
      mode = arrived ? ReleaseSignal.Mode.NOTIFIED : ReleaseSignal.Mode.POLLED;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (arrived) {
      LOG.info(
          "writer-fence: queued writers are woken by notifications (mode notified), listening on {}",
          where);
    } else if (!isClosed()) {
      LOG.warn(
          "writer-fence: a notification sent to {} did not arrive within {} ms (a transaction"
              + " pooler such as PgBouncer does not pass LISTEN's notifications on); queued"
              + " writers poll instead (mode polled). Set queue.listen-url to a direct connection"
              + " to PostgreSQL to have them woken, or queue.listen=false to skip this probe",
          where,
          TimeUnit.NANOSECONDS.toMillis(PROBE_NANOS));
    }
    return arrived;
  }

  private static int releases(PGNotification[] received, String probe) {
    return releases(received, probe, new boolean[1]);
  }

  /**
   * Counts the notifications that are releases: not a probe (this listener's, or another
   * process's). Sets {@code mine[0]} when this listener's {@code probe} is among them.
   */
  private static int releases(PGNotification[] received, String probe, boolean[] mine) {
    int releases = 0;
    for (PGNotification n : received) {
      String payload = n.getParameter();
      if (probe != null && probe.equals(payload)) {
        mine[0] = true;
      } else if (payload == null || !payload.startsWith(PROBE_PREFIX)) {
        releases++;
      }
    }
    return releases;
  }

  /** A listening connection that cannot be had is told once (a wrong listen-url), then debug. */
  private void logConnectFailure(Exception e) {
    boolean first;
    lock.lock();
    try {
      first = !connectFailureLogged;
      connectFailureLogged = true;
    } finally {
      lock.unlock();
    }
    if (first) {
      LOG.warn(
          "writer-fence: the release listener could not listen on {} ({}); queued writers poll"
              + " meanwhile and it tries again every second",
          where,
          e.toString());
    } else {
      LOG.debug("writer-fence: release listener lost its connection; waiters poll meanwhile", e);
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

  boolean isClosed() {
    lock.lock();
    try {
      return closed;
    } finally {
      lock.unlock();
    }
  }
}
