package dev.writerfence.faults;

import static org.awaitility.Awaitility.await;

import dev.writerfence.schema.FenceSchema;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A primary and one streaming standby of Debian's PostgreSQL 15 ({@link DebianCluster}), made fresh
 * for a test under cluster names no other run uses and dropped by {@link #close()} (and by a
 * shutdown hook, should the JVM end first). The writer-fence schema is installed on the primary
 * before the standby's base backup, so both servers start with it.
 *
 * <p>Writers reach whichever server is the primary through {@link #failoverUrl()}, a multi-host URL
 * with {@code targetServerType=primary}: before the failover that is the primary, after {@link
 * #promoteStandby()} the standby.
 */
final class StreamingReplication implements AutoCloseable {
  /** How the primary waits for the standby at commit. */
  enum Mode {
    /** Commits return once local: a crash can lose the last ones. */
    ASYNCHRONOUS(null),
    /** Commits return once the standby has flushed them. */
    SYNCHRONOUS_ON("on"),
    /** Commits return once the standby has applied them (visible to its queries). */
    SYNCHRONOUS_REMOTE_APPLY("remote_apply");

    private final String synchronousCommit;

    Mode(String synchronousCommit) {
      this.synchronousCommit = synchronousCommit;
    }

    boolean synchronous() {
      return synchronousCommit != null;
    }
  }

  private static final Duration WITHIN = Duration.ofSeconds(60);

  private final Mode mode;
  private final DebianCluster primary;
  private final DebianCluster standby;
  private final Thread dropOnExit;
  private final AtomicBoolean dropped = new AtomicBoolean();

  private StreamingReplication(Mode mode, DebianCluster primary, DebianCluster standby) {
    this.mode = mode;
    this.primary = primary;
    this.standby = standby;
    this.dropOnExit = new Thread(this::drop, "drop-" + primary.name());
  }

  /**
   * Creates and starts a primary with the writer-fence schema and a standby streaming from it, and
   * waits until the primary sees the standby streaming (as its synchronous standby in the
   * synchronous modes).
   *
   * @param mode asynchronous or synchronous replication
   * @return both servers running; close to drop them
   */
  static StreamingReplication start(Mode mode) throws SQLException {
    DebianCluster.requireOrSkip();
    String run = "wf_" + UUID.randomUUID().toString().substring(0, 8);
    DebianCluster primary = DebianCluster.create(run + "_primary", List.of());
    DebianCluster standby = DebianCluster.create(run + "_standby", List.of());
    StreamingReplication replication = new StreamingReplication(mode, primary, standby);
    Runtime.getRuntime().addShutdownHook(replication.dropOnExit);
    try {
      primary.start();
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL("jdbc:postgresql://" + primary.hostAndPort() + "/postgres");
      ds.setUser("postgres");
      FenceSchema.defaults().install(ds);
      standby.replaceDataWithBaseBackupOf(primary);
      standby.start();
      if (mode.synchronous()) {
        // Only now, and only on the primary (ALTER SYSTEM after the base backup): a synchronous
        // primary without its standby would hang every commit (the schema install above), and a
        // promoted standby with the setting would wait for a standby it does not have.
        try (Connection c = primary.connect();
            Statement st = c.createStatement()) {
          st.execute("ALTER SYSTEM SET synchronous_standby_names = '*'");
          st.execute("ALTER SYSTEM SET synchronous_commit = '" + mode.synchronousCommit + "'");
          st.execute("SELECT pg_reload_conf()");
        }
      }
      String state = mode.synchronous() ? "sync" : "async";
      await(standby + " streaming (" + state + ")")
          .atMost(WITHIN)
          .pollInterval(Duration.ofMillis(100))
          .until(() -> replicationState(primary).equals("streaming " + state));
      return replication;
    } catch (RuntimeException | SQLException | AssertionError e) {
      replication.close();
      throw e;
    }
  }

  /**
   * @return a JDBC URL naming both servers that connects to whichever of them is the primary
   *     ({@code hostRecheckSeconds=1}: pgjdbc forgets within a second that the standby was one)
   */
  String failoverUrl() {
    return "jdbc:postgresql://"
        + primary.hostAndPort()
        + ","
        + standby.hostAndPort()
        + "/postgres?targetServerType=primary&hostRecheckSeconds=1";
  }

  DebianCluster primary() {
    return primary;
  }

  DebianCluster standby() {
    return standby;
  }

  Mode mode() {
    return mode;
  }

  /** Waits until the standby has replayed everything the primary had written when called. */
  void awaitStandbyCaughtUp() throws SQLException {
    String lsn = query(primary, "SELECT pg_current_wal_lsn()::text");
    await("the standby replays up to " + lsn)
        .atMost(WITHIN)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                query(standby, "SELECT pg_last_wal_replay_lsn() >= '" + lsn + "'::pg_lsn")
                    .equals("t"));
  }

  /**
   * Stops the standby from receiving WAL, so that what the primary commits from now on never
   * reaches it: the standby's {@code primary_conninfo} is emptied and reloaded, which ends its WAL
   * receiver and starts none (PostgreSQL 13 and later reload this setting); the call returns once
   * no WAL receiver runs.
   *
   * <p>Why not {@code pg_wal_replay_pause()}: a paused standby still receives and flushes WAL, and
   * a promotion replays all of it first, so the "missed" commits would survive. Why not stopping
   * the standby: it would have to be started again after the primary's crash, slower and with one
   * more moving part. Emptying the connection string is one reloadable setting, checked in {@code
   * pg_stat_wal_receiver}, and the standby keeps serving reads, so a test can look at what it has.
   */
  void cutStandbyOff() throws SQLException {
    try (Connection c = standby.connect();
        Statement st = c.createStatement()) {
      st.execute("ALTER SYSTEM SET primary_conninfo = ''");
      st.execute("SELECT pg_reload_conf()");
    }
    await("the standby's WAL receiver ends")
        .atMost(WITHIN)
        .pollInterval(Duration.ofMillis(50))
        .until(() -> query(standby, "SELECT count(*) FROM pg_stat_wal_receiver").equals("0"));
  }

  /** Crashes the primary: immediate shutdown, as a killed postmaster. */
  void crashPrimary() {
    primary.crash();
  }

  /**
   * Promotes the standby ({@code pg_promote(true, 60)}) and returns once it accepts writes.
   *
   * @throws AssertionError when the promotion did not finish within 60 s
   */
  void promoteStandby() throws SQLException {
    if (!query(standby, "SELECT pg_promote(true, 60)").equals("t")) {
      throw new AssertionError(standby + " was not promoted within 60 s");
    }
    if (!query(standby, "SELECT pg_is_in_recovery()").equals("f")) {
      throw new AssertionError(standby + " is still in recovery after its promotion");
    }
  }

  /**
   * @return the timeline ID of a primary's current WAL insert position (1 for a new cluster, one
   *     more at every promotion)
   */
  static long timeline(DebianCluster server) throws SQLException {
    return Long.parseLong(
        query(server, "SELECT substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8)"), 16);
  }

  /**
   * @return the first column of the first row of {@code sql} on {@code server}, as text
   */
  static String query(DebianCluster server, String sql) throws SQLException {
    try (Connection c = server.connect();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : "";
    }
  }

  private static String replicationState(DebianCluster primary) throws SQLException {
    return query(primary, "SELECT state || ' ' || sync_state FROM pg_stat_replication");
  }

  /** Drops both clusters (stopping what still runs). */
  @Override
  public void close() {
    drop();
    try {
      Runtime.getRuntime().removeShutdownHook(dropOnExit);
    } catch (IllegalStateException e) {
      // the JVM is shutting down: the hook runs drop() once more, harmlessly
    }
  }

  private void drop() {
    if (dropped.getAndSet(true)) {
      return;
    }
    standby.drop();
    primary.drop();
  }
}
