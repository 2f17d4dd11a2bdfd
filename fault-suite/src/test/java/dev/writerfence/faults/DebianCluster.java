package dev.writerfence.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * One cluster of Debian's PostgreSQL 15 ({@code postgresql-15} and {@code postgresql-common}), made
 * with {@code pg_createcluster} under a name of its own, listening on 127.0.0.1 only on a free
 * port, with trust authentication over TCP, run as the {@code postgres} user by {@code
 * pg_ctlcluster}. Unlike the zonky servers of the other tests these come with {@code
 * pg_basebackup}, which {@link StreamingReplication} needs to make a standby.
 *
 * <p>Tests that use it call {@link #requireOrSkip()} first: skipped with a message when the
 * packages are missing or the JVM is not root, failed instead when {@code CI=true}.
 */
final class DebianCluster {
  static final String VERSION = "15";
  private static final Path BIN = Path.of("/usr/lib/postgresql", VERSION, "bin");
  private static final Path CREATE_CLUSTER = Path.of("/usr/bin/pg_createcluster");
  private static final long COMMAND_SECONDS = 120;

  private final String name;
  private final int port;

  private DebianCluster(String name, int port) {
    this.name = name;
    this.port = port;
  }

  /**
   * Skips the calling test when Debian's PostgreSQL 15 is not installed or the JVM does not run as
   * root (which {@code pg_createcluster} needs), or fails it when {@code CI=true}.
   */
  static void requireOrSkip() {
    String missing = null;
    if (!Files.isExecutable(CREATE_CLUSTER) || !Files.isExecutable(BIN.resolve("pg_basebackup"))) {
      missing = "Debian's postgresql-" + VERSION + " is not installed";
    } else if (!"root".equals(System.getProperty("user.name"))) {
      missing = "the test JVM is not root, which pg_createcluster needs";
    }
    if (missing == null) {
      return;
    }
    String message =
        missing
            + ": the streaming replication tests need Debian's PostgreSQL "
            + VERSION
            + " (apt-get install postgresql-"
            + VERSION
            + "), which .ci/run installs";
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.abort(message + "; skipped");
  }

  /**
   * Creates a cluster (not started) with {@code settings} appended to its configuration.
   *
   * @param name a cluster name no other cluster on the machine has
   * @param settings lines of {@code postgresql.conf}, for this cluster only
   * @return the stopped cluster; {@link #drop()} removes it
   */
  static DebianCluster create(String name, List<String> settings) {
    DebianCluster cluster = new DebianCluster(name, freePort());
    run(
        CREATE_CLUSTER.toString(),
        VERSION,
        name,
        "-p",
        String.valueOf(cluster.port),
        // not started by the system's postgresql service at boot: the test owns it
        "--start-conf=manual",
        "--",
        "--auth-host=trust");
    List<String> lines = new ArrayList<>();
    // Only loopback; Debian's default socket directory stays, pg_ctlcluster uses it.
    lines.add("listen_addresses = '127.0.0.1'");
    // The faults here kill processes, not the machine: the OS keeps what was written.
    lines.add("fsync = off");
    lines.add("log_min_messages = warning");
    lines.addAll(settings);
    try {
      Files.writeString(
          cluster.settingsFile(), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return cluster;
  }

  /**
   * @return where the cluster's data lives (owned by {@code postgres})
   */
  Path dataDirectory() {
    return Path.of("/var/lib/postgresql", VERSION, name);
  }

  /** The test's settings, in the cluster's {@code conf.d} (read after postgresql.conf). */
  private Path settingsFile() {
    return Path.of("/etc/postgresql", VERSION, name, "conf.d", "writer-fence-test.conf");
  }

  /**
   * Replaces this (stopped) cluster's data with a base backup of {@code primary}, streamed with its
   * WAL, and the standby settings ({@code standby.signal}, {@code primary_conninfo}) written by
   * {@code -R}.
   */
  void replaceDataWithBaseBackupOf(DebianCluster primary) {
    run("rm", "-rf", dataDirectory().toString());
    run(
        "runuser",
        "-u",
        "postgres",
        "--",
        BIN.resolve("pg_basebackup").toString(),
        "-h",
        "127.0.0.1",
        "-p",
        String.valueOf(primary.port),
        "-U",
        "postgres",
        "-D",
        dataDirectory().toString(),
        "-R",
        "-X",
        "stream",
        "-c",
        "fast");
  }

  void start() {
    run("pg_ctlcluster", VERSION, name, "start");
  }

  /** Stops the server as a crash would: immediate shutdown, no checkpoint, sessions cut. */
  void crash() {
    run("pg_ctlcluster", VERSION, name, "stop", "-m", "immediate");
  }

  /** Stops the cluster if it runs and removes its data and configuration; never throws. */
  void drop() {
    try {
      // pg_dropcluster removes the files it made and leaves a directory holding any other: the
      // settings file goes first, so nothing of the cluster stays behind in /etc.
      Files.deleteIfExists(settingsFile());
      run("pg_dropcluster", "--stop", VERSION, name);
    } catch (IOException e) {
      System.err.println("could not drop cluster " + VERSION + "/" + name + ": " + e);
    } catch (RuntimeException | AssertionError e) {
      System.err.println("could not drop cluster " + VERSION + "/" + name + ": " + e.getMessage());
    }
  }

  String name() {
    return name;
  }

  int port() {
    return port;
  }

  String hostAndPort() {
    return "127.0.0.1:" + port;
  }

  /**
   * @return a new connection as the superuser {@code postgres} to this server alone
   */
  Connection connect() throws SQLException {
    return DriverManager.getConnection(
        "jdbc:postgresql://" + hostAndPort() + "/postgres?connectTimeout=5", "postgres", null);
  }

  @Override
  public String toString() {
    return "cluster " + VERSION + "/" + name + " on " + hostAndPort();
  }

  /**
   * Runs one SQL command through Debian's {@code psql} (libpq, a client that shares no code with
   * pgjdbc or writer-fence) as the superuser.
   *
   * @return its unaligned, tuples-only output, trimmed
   * @throws AssertionError with psql's output when it fails
   */
  String psql(String sql) {
    return run(
            BIN.resolve("psql").toString(),
            "-X",
            "-qAt",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            "127.0.0.1",
            "-p",
            String.valueOf(port),
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-c",
            sql)
        .strip();
  }

  /** Runs a command to its end; throws with its output when it fails. */
  private static String run(String... command) {
    try {
      Process process =
          new ProcessBuilder(command)
              .directory(Path.of("/tmp").toFile()) // readable by postgres, for runuser
              .redirectErrorStream(true)
              .start();
      process.getOutputStream().close();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(COMMAND_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(String.join(" ", command) + " did not end within 120 s");
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(
            String.join(" ", command)
                + " exited with "
                + process.exitValue()
                + ": "
                + new String(out, StandardCharsets.UTF_8));
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + command[0], e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
