package dev.writerfence.demo;

import dev.writerfence.cli.DatabaseOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** The demo's PostgreSQL: an embedded server on 127.0.0.1, or one the user named. */
final class DemoDatabase implements AutoCloseable {
  private final EmbeddedPostgres embedded;
  private final String jdbcUrl;
  private final String user;
  private final String password;

  private DemoDatabase(EmbeddedPostgres embedded, String jdbcUrl, String user, String password) {
    this.embedded = embedded;
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    this.password = password;
  }

  /** {@code max_connections} of a server that is not sized for a run: PostgreSQL's default. */
  static final int DEFAULT_MAX_CONNECTIONS = 100;

  /**
   * Starts an embedded server that listens on 127.0.0.1 only (no unix socket), logging to a file.
   *
   * @param serverLog where the server logs
   * @param port its TCP port, 1 to 65535, or 0 for a free one
   * @param maxConnections its {@code max_connections}
   * @return the running server; close it
   * @throws IOException when it does not start; {@link PortTakenException} naming the port and what
   *     answers there when another server holds the port
   */
  static DemoDatabase embedded(Path serverLog, int port, int maxConnections) throws IOException {
    if (port != 0) {
      refuseTakenPort(port);
    }
    // A data directory of our own, so that the server answering can be told apart from another
    // one that already held the port (zonky then waits for "a" server and finds that one).
    Path dataDirectory = Files.createTempDirectory("writer-fence-pg-");
    EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setPort(port) // zonky picks a free one for 0
            .setDataDirectory(dataDirectory)
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("unix_socket_directories", "")
            .setServerConfig("max_connections", Integer.toString(maxConnections))
            .setServerConfig("log_min_messages", "warning")
            .setServerConfig("log_min_error_statement", "error")
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
            .start();
    DemoDatabase db =
        new DemoDatabase(
            pg, "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres", "postgres", null);
    String other = db.notOurs(dataDirectory);
    if (other != null) {
      try {
        pg.close();
      } catch (IOException | RuntimeException e) {
        // its postmaster never ran: nothing of ours to stop
      }
      throw new PortTakenException(
          "127.0.0.1:"
              + pg.getPort()
              + " is held by "
              + other
              + ", not by the PostgreSQL this command started (that one could not listen there;"
              + " see the server log "
              + serverLog
              + "); nothing was installed: choose a free port with --port");
    }
    return db;
  }

  /**
   * Refuses a port that something already listens on, before any server is started: zonky would
   * otherwise wait for "a" server there, and hang on one that never speaks PostgreSQL's protocol.
   */
  private static void refuseTakenPort(int port) throws PortTakenException {
    try (ServerSocket probe = new ServerSocket()) {
      probe.setReuseAddress(false);
      probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    } catch (IOException taken) {
      throw new PortTakenException(
          "127.0.0.1:"
              + port
              + " is held by "
              + whoAnswers(port)
              + "; nothing was started or installed: choose a free port with --port");
    }
  }

  /** What answers on a port, asked as the embedded server's role, within seconds. */
  private static String whoAnswers(int port) {
    String url =
        "jdbc:postgresql://127.0.0.1:" + port + "/postgres?connectTimeout=5&socketTimeout=5";
    try (Connection c = DatabaseOptions.dataSource(url, "postgres", null).getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT current_setting('server_version'), current_setting('data_directory')")) {
      rs.next();
      return "another PostgreSQL " + rs.getString(1) + " serving " + rs.getString(2);
    } catch (SQLException e) {
      String state = e.getSQLState();
      return state != null && !state.startsWith("08")
          ? "another PostgreSQL (it answered: " + e.getMessage() + ")"
          : "another process, which does not answer as PostgreSQL (" + e.getMessage() + ")";
    }
  }

  /** Refusal to hand out a server this process did not start. */
  static final class PortTakenException extends IOException {
    private static final long serialVersionUID = 1L;

    PortTakenException(String message) {
      super(message);
    }
  }

  /**
   * Whether the server answering on the port is the one just started: it says it serves the data
   * directory just created for it (readable only by a superuser, which the embedded server's role
   * is; another server that lets us in as a plain role cannot say).
   *
   * @return {@code null} when it is ours; otherwise what answers there, for the message
   */
  private String notOurs(Path dataDirectory) {
    String answer;
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT current_setting('server_version'), current_setting('data_directory')")) {
      rs.next();
      String dir = rs.getString(2);
      if (sameDirectory(dir, dataDirectory)) {
        return null;
      }
      answer = "another PostgreSQL " + rs.getString(1) + " serving " + dir;
    } catch (SQLException e) {
      answer =
          "another server (asked which data directory it serves, it answered: "
              + e.getMessage()
              + ")";
    }
    return answer;
  }

  private static boolean sameDirectory(String served, Path ours) {
    try {
      return Path.of(served).toRealPath().equals(ours.toRealPath());
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * @param jdbcUrl a jdbc:postgresql: URL
   * @param user the role, or {@code null}
   * @param password its password, or {@code null}
   * @return that server; closing it does nothing
   */
  static DemoDatabase external(String jdbcUrl, String user, String password) {
    return new DemoDatabase(null, jdbcUrl, user, password);
  }

  String jdbcUrl() {
    return jdbcUrl;
  }

  String user() {
    return user;
  }

  String password() {
    return password;
  }

  boolean isEmbedded() {
    return embedded != null;
  }

  /**
   * @return an unpooled data source of the demo's role
   */
  DataSource dataSource() {
    return DatabaseOptions.dataSource(jdbcUrl, user, password);
  }

  /**
   * @return for example {@code embedded PostgreSQL 17.6 on 127.0.0.1:5432}
   * @throws SQLException when the server cannot be asked
   */
  String describe() throws SQLException {
    String version;
    try (Connection c = dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW server_version")) {
      rs.next();
      version = rs.getString(1).split(" ")[0];
    }
    if (embedded != null) {
      return "embedded PostgreSQL " + version + " on 127.0.0.1:" + embedded.getPort();
    }
    int at = jdbcUrl.indexOf('?');
    return "PostgreSQL " + version + " at " + (at < 0 ? jdbcUrl : jdbcUrl.substring(0, at));
  }

  @Override
  public void close() throws IOException {
    if (embedded != null) {
      embedded.close();
    }
  }
}
