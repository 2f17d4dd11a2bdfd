package dev.writerfence.benchmarks.jmh;

import dev.writerfence.benchmarks.peers.BenchTarget;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The SQL contract's statements against a plain durable single-row {@code UPDATE}, on raw JDBC (one
 * connection, autocommit, server-side prepared statements: what pgjdbc does for a statement used
 * more than {@code prepareThreshold} times), with no pool and no library code in between.
 *
 * <p>One operation is a round of six statements, each timed on its own: {@code UPDATE}, {@code
 * acquire_lease} (whole seconds), {@code release}, {@code UPDATE}, {@code acquire_lease_ms}, {@code
 * release}. The statements take turns within every round, so a machine that other work slows down
 * slows all of them alike, and the ratios of their mean times ({@link Timings}; the report divides
 * each by the {@code UPDATE}'s) hold within one run. The primary score is the round's mean time in
 * microseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class StatementBenchmark {
  /** The statement of the plain durable single-row update: one row of the floor's table. */
  static final String UPDATE = "UPDATE bench_floor SET n = n + 1 WHERE name = ?";

  /** What the library's lease store sends to acquire with a TTL in whole seconds. */
  static final String ACQUIRE =
      "SELECT fencing_token, acquired_at, expires_at FROM writer_fence.acquire_lease(?, ?, ?, ?)";

  /** What the lease store sends to acquire with a TTL in milliseconds. */
  static final String ACQUIRE_MS =
      "SELECT fencing_token, acquired_at, expires_at FROM writer_fence.acquire_lease_ms(?, ?, ?, ?)";

  /** What the lease store sends to release. */
  static final String RELEASE = "SELECT writer_fence.release(?, ?)";

  private Connection connection;
  private PreparedStatement update;
  private PreparedStatement acquire;
  private PreparedStatement acquireMs;
  private PreparedStatement release;
  private String name;
  private final UUID holder = UUID.randomUUID();

  /**
   * Total nanoseconds and calls per statement in an iteration, reported by JMH as secondary
   * results; a statement's mean time is its nanoseconds over its calls.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Timings {
    /** Nanoseconds in the plain {@code UPDATE}s. */
    public long updateNanos;

    /** Plain {@code UPDATE}s run. */
    public long updateCalls;

    /** Nanoseconds in {@code acquire_lease}. */
    public long acquireNanos;

    /** {@code acquire_lease} calls. */
    public long acquireCalls;

    /** Nanoseconds in {@code acquire_lease_ms}. */
    public long acquireMsNanos;

    /** {@code acquire_lease_ms} calls. */
    public long acquireMsCalls;

    /** Nanoseconds in {@code release}. */
    public long releaseNanos;

    /** {@code release} calls. */
    public long releaseCalls;

    /** JMH keeps event counters across iterations unless they are reset. */
    @Setup(Level.Iteration)
    public void reset() {
      updateNanos = 0;
      updateCalls = 0;
      acquireNanos = 0;
      acquireCalls = 0;
      acquireMsNanos = 0;
      acquireMsCalls = 0;
      releaseNanos = 0;
      releaseCalls = 0;
    }
  }

  /**
   * Connects as the launcher's superuser and prepares the statements on the server.
   *
   * @throws SQLException when the server cannot be reached or the contract is not installed
   */
  @Setup(Level.Trial)
  public void open() throws SQLException {
    BenchTarget target = BenchTarget.fromSystemProperties();
    // prepareThreshold=1: server-side prepared from the first call, as every statement of a
    // long-running writer is after its fifth.
    connection =
        DriverManager.getConnection(
            target.jdbcUrl() + (target.jdbcUrl().contains("?") ? "&" : "?") + "prepareThreshold=1",
            "postgres",
            null);
    name = "statements-" + UUID.randomUUID().toString().substring(0, 8);
    try (PreparedStatement row =
        connection.prepareStatement(
            "INSERT INTO bench_floor (name, n) VALUES (?, 0) ON CONFLICT (name) DO NOTHING")) {
      row.setString(1, name);
      row.executeUpdate();
    }
    update = connection.prepareStatement(UPDATE);
    update.setString(1, name);
    acquire = connection.prepareStatement(ACQUIRE);
    acquire.setString(1, name);
    acquire.setObject(2, holder);
    acquire.setString(3, "statement-benchmark");
    acquire.setInt(4, 30);
    acquireMs = connection.prepareStatement(ACQUIRE_MS);
    acquireMs.setString(1, name + "-ms");
    acquireMs.setObject(2, holder);
    acquireMs.setString(3, "statement-benchmark");
    acquireMs.setLong(4, 30_000L);
    release = connection.prepareStatement(RELEASE);
    release.setObject(2, holder);
  }

  /**
   * Closes the connection.
   *
   * @throws SQLException when closing fails
   */
  @TearDown(Level.Trial)
  public void close() throws SQLException {
    connection.close();
  }

  /**
   * One round of the six statements, each timed.
   *
   * @param t where the times go
   * @return the fencing tokens granted, so the calls are not optimised away
   * @throws SQLException when a statement fails
   * @throws IllegalStateException when an acquire finds its own fence busy or a release frees
   *     nothing: a round that does not measure what it claims
   */
  @Benchmark
  public long round(Timings t) throws SQLException {
    long t0 = System.nanoTime();
    update.executeUpdate();
    long t1 = System.nanoTime();
    long token = granted(acquire);
    long t2 = System.nanoTime();
    released(name);
    long t3 = System.nanoTime();
    update.executeUpdate();
    long t4 = System.nanoTime();
    token += granted(acquireMs);
    long t5 = System.nanoTime();
    released(name + "-ms");
    long t6 = System.nanoTime();
    t.updateNanos += (t1 - t0) + (t4 - t3);
    t.updateCalls += 2;
    t.acquireNanos += t2 - t1;
    t.acquireCalls++;
    t.acquireMsNanos += t5 - t4;
    t.acquireMsCalls++;
    t.releaseNanos += (t3 - t2) + (t6 - t5);
    t.releaseCalls += 2;
    return token;
  }

  private static long granted(PreparedStatement acquire) throws SQLException {
    try (ResultSet rs = acquire.executeQuery()) {
      if (!rs.next()) {
        throw new IllegalStateException("acquire found its own uncontended fence busy");
      }
      return rs.getLong(1);
    }
  }

  private void released(String fence) throws SQLException {
    release.setString(1, fence);
    try (ResultSet rs = release.executeQuery()) {
      if (!rs.next() || !rs.getBoolean(1)) {
        throw new IllegalStateException("release of " + fence + " freed nothing");
      }
    }
  }
}
