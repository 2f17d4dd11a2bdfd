package dev.writerfence.benchmarks.queue;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.ForkedJvm;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The phases of {@link FairQueueRun} in which the contenders wait while this JVM holds the lease:
 * the idle waiters' load on the server (statements, and the head's polls), and a dead head (the
 * waiter at place 1 stopped or killed) delaying the next grant. Also counts the run's rows left in
 * {@code queue_status}. Its own statements are left out of every count.
 */
final class WaitingPhases {
  private static final Logger LOG = LoggerFactory.getLogger(WaitingPhases.class);

  /** How often {@code queue_status} is sampled while the idle waiters are counted. */
  static final long SAMPLE_MILLIS = 50;

  /** The holder's lease while others wait: minutes left, as issue 27's head-poll target says. */
  static final Duration HOLD = Duration.ofMinutes(10);

  /** The holder's budget: longer than any lease a contender might have left behind. */
  private static final BusyRetryPolicy PATIENT =
      BusyRetryPolicy.defaults().withMaxAttempts(100_000).withMaxWait(Duration.ofSeconds(60));

  private static final Duration WON = Duration.ofSeconds(120);

  /**
   * This class's own queries start so: {@code pg_stat_statements} keeps the comment in a query's
   * text, so they are left out of the counts.
   */
  private static final String SELECT = "SELECT /* fairqueue-bench */ ";

  private static final String QUEUE =
      SELECT
          + "holder_label, place, refreshed_at FROM "
          + FenceSchema.DEFAULT_SCHEMA
          + ".queue_status WHERE fence_name = ?";

  private final DataSource admin;
  private final String name;

  WaitingPhases(DataSource admin, String name) {
    this.admin = admin;
    this.name = name;
  }

  /**
   * Every contender waits while this JVM holds the lease with {@link #HOLD} left; after {@code
   * settle}, counts the server's statements and the head's polls for {@code length}; then releases
   * and waits for every contender to win.
   */
  FairQueueRun.Idle idle(List<ForkedJvm> jvms, Duration length, Duration settle) throws Exception {
    try (WriterFence holder = WriterFence.builder(admin).build()) {
      FenceLease lease = holder.acquire(hold());
      long counted;
      double leftSeconds;
      Map<String, Set<Object>> refreshes = new HashMap<>();
      String head = null;
      String counter;
      try {
        jvms.forEach(j -> j.send("wait"));
        Thread.sleep(settle.toMillis());
        counter = statementsCounter();
        leftSeconds = holder.status(name).map(s -> s.secondsLeft().doubleValue()).orElse(0.0);
        long before = statements(counter);
        long end = System.nanoTime() + length.toNanos();
        try (Connection c = admin.getConnection();
            PreparedStatement st = c.prepareStatement(QUEUE)) {
          st.setString(1, name);
          while (System.nanoTime() < end) {
            try (ResultSet rs = st.executeQuery()) {
              while (rs.next()) {
                String label = rs.getString(1);
                refreshes.computeIfAbsent(label, k -> new HashSet<>()).add(rs.getObject(3));
                if (rs.getInt(2) == 1) {
                  head = label;
                }
              }
            }
            Thread.sleep(SAMPLE_MILLIS);
          }
        }
        counted = statements(counter) - before;
      } finally {
        holder.release(lease);
      }
      Map<String, Integer> modes = new TreeMap<>();
      for (ForkedJvm jvm : jvms) {
        modes.merge(jvm.awaitLine("won", WON).split(" ")[1], 1, Integer::sum);
      }
      double seconds = length.toNanos() / 1e9;
      // The first value seen was refreshed before the count began.
      long headPolls = head == null ? 0 : Math.max(0, refreshes.get(head).size() - 1);
      return new FairQueueRun.Idle(
          jvms.size(),
          seconds,
          counted,
          counted / seconds,
          FairQueueRun.pollBoundPerSecond(
              jvms.size(),
              WriterFence.DEFAULT_QUEUE_POLL_INTERVAL,
              WriterFence.DEFAULT_QUEUE_LAPSE),
          counter,
          counted / seconds / jvms.size(),
          leftSeconds,
          headPolls,
          headPolls / seconds,
          modes);
    }
  }

  /**
   * {@code head} waits at place 1 and {@code next} at place 2 while this JVM holds the lease; then
   * {@code head} is stopped ({@code SIGSTOP}, continued once {@code next} won) or killed ({@code
   * SIGKILL}), and the lease released: how long until {@code next} enters its section.
   */
  FairQueueRun.DeadHead deadHead(
      String signal, ForkedJvm head, String headLabel, ForkedJvm next, String nextLabel)
      throws Exception {
    try (WriterFence holder = WriterFence.builder(admin).build()) {
      FenceLease lease = holder.acquire(hold());
      boolean released = false;
      long releasedAt;
      String[] won;
      try {
        head.send("wait");
        awaitPlace(headLabel, 1);
        next.send("wait");
        awaitPlace(nextLabel, 2);
        if (signal.equals("SIGKILL")) {
          head.process().destroyForcibly(); // SIGKILL on Linux
          head.process().waitFor();
        } else {
          kill("-STOP", head.pid());
        }
        releasedAt = System.nanoTime();
        holder.release(lease);
        released = true;
        won = next.awaitLine("won", WON).split(" ");
      } finally {
        if (!released) {
          holder.release(lease);
        }
        if (!signal.equals("SIGKILL")) {
          kill("-CONT", head.pid());
        }
      }
      if (!signal.equals("SIGKILL")) {
        head.awaitLine("won", WON); // continued, it queues again and is served
      }
      return new FairQueueRun.DeadHead(signal, (Long.parseLong(won[2]) - releasedAt) / 1e6, won[1]);
    }
  }

  /**
   * @return rows of {@code queue_status} for the run's fence name, lapsed tickets included
   */
  long queueRows() throws SQLException {
    try (Connection c = admin.getConnection();
        PreparedStatement st =
            c.prepareStatement(
                SELECT
                    + "count(*) FROM "
                    + FenceSchema.DEFAULT_SCHEMA
                    + ".queue_status WHERE fence_name = ?")) {
      st.setString(1, name);
      try (ResultSet rs = st.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private FenceRequest hold() {
    return FenceRequest.builder(name).ttl(HOLD).retryPolicy(PATIENT).build();
  }

  /** Waits until the contender labelled {@code label} holds {@code place} in the queue. */
  private void awaitPlace(String label, int place) throws SQLException, InterruptedException {
    long deadline = System.nanoTime() + WON.toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = admin.getConnection();
          PreparedStatement st = c.prepareStatement(QUEUE)) {
        st.setString(1, name);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            String l = rs.getString(1);
            if ((l.equals(label) || l.startsWith(label + "@")) && rs.getInt(2) == place) {
              return;
            }
          }
        }
      }
      Thread.sleep(SAMPLE_MILLIS);
    }
    throw new IllegalStateException(
        "contender " + label + " did not reach place " + place + " within " + WON);
  }

  private static void kill(String signal, long pid) throws IOException, InterruptedException {
    int code = new ProcessBuilder("kill", signal, String.valueOf(pid)).start().waitFor();
    if (code != 0) {
      throw new IllegalStateException("kill " + signal + " " + pid + " exited with " + code);
    }
  }

  /**
   * @return {@code pg_stat_statements} when the server loads it (the extension is created if
   *     missing), else {@code pg_stat_database}
   */
  private String statementsCounter() {
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement()) {
      st.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
      st.executeQuery(SELECT + "count(*) FROM pg_stat_statements").close();
      return "pg_stat_statements";
    } catch (SQLException e) {
      LOG.warn("pg_stat_statements is not loaded ({}): counting transactions", e.getMessage());
      return "pg_stat_database";
    }
  }

  /**
   * Statements executed so far in the {@code postgres} database, this class's own left out: top
   * level statements by {@code pg_stat_statements}, or committed and rolled back transactions.
   */
  private long statements(String counter) throws SQLException {
    String sql =
        counter.equals("pg_stat_statements")
            ? SELECT
                + "coalesce(sum(s.calls), 0) FROM pg_stat_statements s"
                + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'postgres'"
                + " AND s.query NOT LIKE '%fairqueue-bench%'"
            : SELECT
                + "xact_commit + xact_rollback FROM pg_stat_database"
                + " WHERE datname = 'postgres'";
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
