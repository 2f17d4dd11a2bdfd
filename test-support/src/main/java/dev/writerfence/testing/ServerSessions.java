package dev.writerfence.testing;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * Counts the server sessions of one database role while a run goes on, from a connection of its own
 * (which it does not count unless it is of that role): every few milliseconds it reads {@code
 * pg_stat_activity} and keeps the largest count seen and the application names of those sessions.
 * For tests and benchmarks that bound how many connections a process opens.
 *
 * <pre>{@code
 * ServerSessions sessions = ServerSessions.of(db.dataSource(), "app");
 * sessions.start();
 * try {
 *   // the run
 * } finally {
 *   sessions.stop();
 * }
 * assertThat(sessions.max()).isLessThanOrEqualTo(poolSize + 1);
 * }</pre>
 */
public final class ServerSessions {
  private static final long PAUSE_MILLIS = 5;

  private final DataSource dataSource;
  private final String role;
  private final AtomicBoolean running = new AtomicBoolean();
  private final AtomicInteger max = new AtomicInteger();
  private final AtomicInteger samples = new AtomicInteger();
  private final Set<String> applicationNames = ConcurrentHashMap.newKeySet();
  private volatile Thread thread;
  private volatile Throwable failure;

  private ServerSessions(DataSource dataSource, String role) {
    this.dataSource = dataSource;
    this.role = role;
  }

  /**
   * @param dataSource where to read {@code pg_stat_activity} from: a role that sees other roles'
   *     sessions (a superuser, or a member of {@code pg_read_all_stats})
   * @param role the role whose sessions are counted
   * @return a sampler, not started
   */
  public static ServerSessions of(DataSource dataSource, String role) {
    return new ServerSessions(dataSource, role);
  }

  /**
   * Starts sampling on a daemon thread of its own.
   *
   * @throws IllegalStateException when it was started already
   */
  public void start() {
    if (!running.compareAndSet(false, true)) {
      throw new IllegalStateException("already started");
    }
    Thread t = new Thread(this::sample, "server-sessions-" + role);
    t.setDaemon(true);
    thread = t;
    t.start();
  }

  /**
   * Stops sampling and waits for the sampling thread to end.
   *
   * @throws AssertionError when a sample failed (the counts would not cover the run)
   * @throws InterruptedException when interrupted while waiting
   */
  public void stop() throws InterruptedException {
    running.set(false);
    Thread t = thread;
    if (t != null) {
      t.join();
    }
    if (failure != null) {
      throw new AssertionError("reading pg_stat_activity failed", failure);
    }
  }

  /**
   * @return the most sessions of the role seen at once
   */
  public int max() {
    return max.get();
  }

  /**
   * @return how many samples were taken
   */
  public int samples() {
    return samples.get();
  }

  /**
   * @return the application names the role's sessions showed, in no order
   */
  public List<String> applicationNames() {
    return List.copyOf(applicationNames);
  }

  private void sample() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*), coalesce(array_agg(DISTINCT application_name), '{}')"
                    + " FROM pg_stat_activity WHERE usename = ?")) {
      ps.setString(1, role);
      while (running.get()) {
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          max.accumulateAndGet(rs.getInt(1), Math::max);
          for (Object name : (Object[]) rs.getArray(2).getArray()) {
            applicationNames.add(String.valueOf(name));
          }
          samples.incrementAndGet();
        }
        Thread.sleep(PAUSE_MILLIS);
      }
    } catch (SQLException | InterruptedException | RuntimeException e) {
      failure = e;
    }
  }
}
