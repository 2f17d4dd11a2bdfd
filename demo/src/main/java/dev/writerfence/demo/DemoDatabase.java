package dev.writerfence.demo;

import dev.writerfence.cli.DatabaseOptions;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
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
   * @throws IOException when it does not start (also when the port is taken)
   */
  static DemoDatabase embedded(Path serverLog, int port, int maxConnections) throws IOException {
    EmbeddedPostgres pg =
        EmbeddedPostgres.builder()
            .setPort(port) // zonky picks a free one for 0
            .setServerConfig("listen_addresses", "127.0.0.1")
            .setServerConfig("unix_socket_directories", "")
            .setServerConfig("max_connections", Integer.toString(maxConnections))
            .setServerConfig("log_min_messages", "warning")
            .setServerConfig("log_min_error_statement", "error")
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(serverLog.toFile()))
            .start();
    return new DemoDatabase(
        pg, "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres", "postgres", null);
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
