package dev.writerfence.store.lease;

import dev.writerfence.spi.ReleaseSignal;
import java.sql.Connection;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;

/**
 * The lease row's {@link ReleaseSignal}, one per fence that opened it, over one listening per
 * process ({@link SharedReleaseListener}): all fences of one data source share one listener, and so
 * do all fences of one {@code queue.listen-url}. The listener closes when its last signal does.
 *
 * <p>Thread-safe.
 */
final class ReleaseListener implements ReleaseSignal {
  // Guarded by itself: the listeners of this process, by their data source or direct URL.
  private static final Map<Object, Entry> SHARED = new HashMap<>();

  private final Object key;
  private final SharedReleaseListener shared;
  private volatile boolean closed;

  private ReleaseListener(Object key, SharedReleaseListener shared) {
    this.key = key;
    this.shared = shared;
  }

  /**
   * Opens a signal on the process's listener of {@code statements}, or of {@code direct} when it is
   * given, starting that listener when none is open.
   *
   * @param statements the fence's statements' data source: the listening connection when {@code
   *     direct} is null, and always the probe's path
   * @param direct a direct connection for the listener alone, or {@code null}
   */
  static ReleaseListener open(DataSource statements, ReleaseSignal.Direct direct) {
    Object key =
        direct != null ? direct.url() + "\u0000" + direct.username() : new Identity(statements);
    synchronized (SHARED) {
      Entry entry =
          SHARED.computeIfAbsent(
              key,
              k ->
                  new Entry(
                      direct != null
                          ? new SharedReleaseListener(
                              () -> connect(direct), statements, "queue.listen-url " + direct)
                          : new SharedReleaseListener(
                              statements::getConnection,
                              statements,
                              "the fence's data source " + statements)));
      entry.users++;
      return new ReleaseListener(key, entry.listener);
    }
  }

  private static Connection connect(ReleaseSignal.Direct direct) throws java.sql.SQLException {
    Properties properties = new Properties();
    if (direct.username() != null) {
      properties.setProperty("user", direct.username());
    }
    if (direct.password() != null) {
      properties.setProperty("password", direct.password());
    }
    Connection connection = new org.postgresql.Driver().connect(direct.url(), properties);
    if (connection == null) { // the driver answers null for a URL it does not take
      throw new java.sql.SQLException(
          "writer-fence: queue.listen-url '" + direct.url() + "' is not a jdbc:postgresql: URL");
    }
    return connection;
  }

  @Override
  public long seen() {
    return shared.seen();
  }

  @Override
  public boolean awaitAfter(long seen, long timeoutNanos) throws InterruptedException {
    if (closed) {
      return true;
    }
    return shared.awaitAfter(seen, timeoutNanos);
  }

  @Override
  public Mode mode() {
    return shared.mode();
  }

  @Override
  public boolean hearing() {
    return !closed && shared.hearing();
  }

  /**
   * @return whether this signal is open and its listener holds its connection with LISTEN now
   */
  boolean isListening() {
    return !closed && shared.isListening();
  }

  @Override
  public void close() {
    synchronized (SHARED) {
      if (closed) {
        return;
      }
      closed = true;
      Entry entry = SHARED.get(key);
      if (entry != null && entry.listener == shared && --entry.users == 0) {
        SHARED.remove(key);
        shared.close();
      }
    }
  }

  @Override
  public String toString() {
    return "ReleaseListener[" + shared.mode().label() + "]";
  }

  /** A shared listener and how many open signals use it. */
  private static final class Entry {
    final SharedReleaseListener listener;
    int users;

    Entry(SharedReleaseListener listener) {
      this.listener = listener;
    }
  }

  /** A data source as a key by identity: pools rarely define equality, and must not share by it. */
  private record Identity(DataSource dataSource) {
    @Override
    public boolean equals(Object o) {
      return o instanceof Identity other && other.dataSource == dataSource;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(dataSource);
    }
  }
}
