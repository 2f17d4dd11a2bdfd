package dev.writerfence.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Debian's PgBouncer (the {@code pgbouncer} binary on the PATH) in front of the embedded
 * PostgreSQL, listening on 127.0.0.1 only, with trust authentication and no unix socket. It refuses
 * to run as root, so as root it is started with {@code -u postgres}. Tests that need it call {@link
 * #requireOrSkip()} first: skipped with a message when the binary is missing, failed instead when
 * the environment variable {@code CI} is {@code true}.
 *
 * <pre>{@code
 * PgBouncer.requireOrSkip();
 * try (PgBouncer bouncer = PgBouncer.start(EmbeddedDatabase.get(), "transaction", 1)) {
 *   DataSource ds = bouncer.dataSource(); // prepareThreshold=0, which transaction mode needs
 * }
 * }</pre>
 */
public final class PgBouncer implements AutoCloseable {
  private static final Duration START_WITHIN = Duration.ofSeconds(15);

  private final Process process;
  private final int port;
  private final Path log;

  private PgBouncer(Process process, int port, Path log) {
    this.process = process;
    this.port = port;
    this.log = log;
  }

  /**
   * @return the {@code pgbouncer} binary on the PATH, if there is one
   */
  public static Optional<Path> binary() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "pgbouncer");
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }

  /**
   * Skips the calling test when {@code pgbouncer} is not on the PATH, or fails it when {@code
   * CI=true} (CI must run these tests).
   */
  public static void requireOrSkip() {
    if (binary().isPresent()) {
      return;
    }
    String message =
        "pgbouncer is not on the PATH: the PgBouncer tests need Debian's pgbouncer"
            + " (apt-get install pgbouncer), which .ci/run installs";
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.abort(message + "; skipped");
  }

  /**
   * Starts PgBouncer for the {@code postgres} database of {@code db} and waits until a client can
   * connect through it.
   *
   * @param db the server behind it
   * @param poolMode {@code session}, {@code transaction} or {@code statement}
   * @param serverConnections {@code default_pool_size}: server connections per user and database
   * @return the running PgBouncer; close it to stop it
   */
  public static PgBouncer start(EmbeddedDatabase db, String poolMode, int serverConnections) {
    return start(db.port(), poolMode, serverConnections);
  }

  /**
   * Starts PgBouncer for the {@code postgres} database of a server on 127.0.0.1 (trust
   * authentication as {@code postgres}), for at most 500 clients, and waits until a client can
   * connect through it.
   *
   * @param postgresPort the server's port on 127.0.0.1
   * @param poolMode {@code session}, {@code transaction} or {@code statement}
   * @param serverConnections {@code default_pool_size}: server connections per user and database
   * @return the running PgBouncer; close it to stop it
   */
  public static PgBouncer start(int postgresPort, String poolMode, int serverConnections) {
    Path binary = binary().orElseThrow(() -> new IllegalStateException("pgbouncer not on PATH"));
    try {
      Path dir =
          Files.createTempDirectory(
              "writer-fence-pgbouncer-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxrwxrwx")));
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxrwxrwx"));
      Path users = dir.resolve("userlist.txt");
      Files.writeString(users, "\"postgres\" \"\"\n", StandardCharsets.UTF_8);
      Path log = dir.resolve("pgbouncer.log");
      int port = freePort();
      Path ini = dir.resolve("pgbouncer.ini");
      Files.writeString(
          ini,
          String.join(
              "\n",
              "[databases]",
              "postgres = host=127.0.0.1 port=" + postgresPort + " dbname=postgres user=postgres",
              "[pgbouncer]",
              "listen_addr = 127.0.0.1",
              "listen_port = " + port,
              "unix_socket_dir =",
              "auth_type = trust",
              "auth_file = " + users,
              "pool_mode = " + poolMode,
              "default_pool_size = " + serverConnections,
              "max_client_conn = 500",
              "ignore_startup_parameters = extra_float_digits",
              "logfile = " + log,
              ""),
          StandardCharsets.UTF_8);
      for (Path p : List.of(users, ini)) {
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-rw-rw-"));
      }
      List<String> command = new ArrayList<>(List.of(binary.toString()));
      if ("root".equals(System.getProperty("user.name"))) {
        command.addAll(List.of("-u", "postgres")); // it refuses to run as root
      }
      command.add(ini.toString());
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("stdout").toFile()))
              .start();
      PgBouncer bouncer = new PgBouncer(process, port, log);
      bouncer.awaitReady();
      return bouncer;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + START_WITHIN.toNanos();
    SQLException last = null;
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("pgbouncer ended at start-up; its log:\n" + logText());
      }
      try (Connection c = DriverManager.getConnection(jdbcUrl(), "postgres", "")) {
        c.createStatement().execute("SELECT 1");
        return;
      } catch (SQLException e) {
        last = e; // not listening yet: try again until the deadline
      }
      try {
        process.waitFor(50, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for pgbouncer", e);
      }
    }
    close();
    throw new IllegalStateException(
        "pgbouncer did not accept a client within " + START_WITHIN + "; its log:\n" + logText(),
        last);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /**
   * @return the port on 127.0.0.1
   */
  public int port() {
    return port;
  }

  /**
   * @return a JDBC URL for {@code postgres} through PgBouncer, with {@code prepareThreshold=0}
   *     (PgBouncer 1.18 keeps no server-side prepared statements in transaction mode)
   */
  public String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?prepareThreshold=0";
  }

  /**
   * @return an unpooled data source of the superuser through PgBouncer
   */
  public DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(jdbcUrl());
    ds.setUser("postgres");
    return ds;
  }

  /**
   * @return what PgBouncer logged so far
   */
  public String logText() {
    try {
      return Files.exists(log) ? Files.readString(log) : "(no log)";
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  /** Stops PgBouncer (SIGTERM, then SIGKILL if it has not ended within 5 s). */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
