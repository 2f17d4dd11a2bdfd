package dev.writerfence.benchmarks.server;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * The PostgreSQL every benchmark of one run talks to: zonky's embedded server on 127.0.0.1, either
 * durable (fsync, synchronous_commit and full_page_writes on, as a lease needs in production) or
 * with zonky's speed-first defaults (labelled as such wherever reported).
 */
public final class BenchDatabase implements AutoCloseable {
  /** The settings reported beside every result, read back from the running server. */
  public static final String[] REPORTED_SETTINGS = {
    "server_version",
    "fsync",
    "synchronous_commit",
    "full_page_writes",
    "wal_sync_method",
    "shared_buffers",
    "max_connections"
  };

  private final EmbeddedPostgres postgres;
  private final boolean durable;

  private BenchDatabase(EmbeddedPostgres postgres, boolean durable) {
    this.postgres = postgres;
    this.durable = durable;
  }

  /**
   * Starts a server and installs every schema the backends need ({@link Schemas#install}).
   *
   * @param durable {@code true} for fsync and synchronous_commit on; {@code false} for zonky's
   *     defaults (fsync off)
   * @return the running server
   * @throws IOException when the server cannot start
   * @throws SQLException when a schema cannot be installed
   */
  public static BenchDatabase start(boolean durable) throws IOException, SQLException {
    Path log = Files.createTempFile("writer-fence-bench-postgres-", ".log");
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("unix_socket_directories", "")
            // The most at once: 64 contenders standing for processes, each with a backend of its
            // own (advisory: a pool of 3 = 192), or one shared pool of 65; beside them the
            // launcher's own connections and PostgreSQL's 3 reserved for the superuser.
            .setServerConfig("max_connections", "300")
            .setServerConfig("log_min_messages", "warning")
            // Statements counted as they run (the fair queue's idle waiters), not as each
            // backend flushes its statistics, which may be seconds late.
            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
    if (durable) {
      // zonky turns these off for speed; a lease that a crash may forget is no lease.
      builder
          .setServerConfig("fsync", "on")
          .setServerConfig("synchronous_commit", "on")
          .setServerConfig("full_page_writes", "on");
    }
    BenchDatabase db = new BenchDatabase(builder.start(), durable);
    Schemas.install(db.dataSource());
    return db;
  }

  /**
   * @return {@code true} when started with the durable settings
   */
  public boolean durable() {
    return durable;
  }

  /**
   * @return the JDBC URL of the {@code postgres} database, to be used as the superuser
   */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + postgres.getPort() + "/postgres";
  }

  /**
   * @return the server's port on 127.0.0.1
   */
  public int port() {
    return postgres.getPort();
  }

  /**
   * @return an unpooled data source of the superuser
   */
  public DataSource dataSource() {
    return postgres.getPostgresDatabase();
  }

  /**
   * @return {@link #REPORTED_SETTINGS} as the running server reports them, in that order
   * @throws SQLException when the server cannot answer
   */
  public Map<String, String> settings() throws SQLException {
    Map<String, String> settings = new LinkedHashMap<>();
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      for (String name : REPORTED_SETTINGS) {
        try (ResultSet rs = st.executeQuery("SHOW " + name)) {
          rs.next();
          settings.put(name, rs.getString(1));
        }
      }
    }
    return settings;
  }

  @Override
  public void close() throws IOException {
    postgres.close();
  }
}
