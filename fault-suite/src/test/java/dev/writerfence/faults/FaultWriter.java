package dev.writerfence.faults;

import static dev.writerfence.testing.WriterProcess.awaitCommand;
import static dev.writerfence.testing.WriterProcess.say;
import static dev.writerfence.testing.WriterProcess.unpooled;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/**
 * A writer process for the fault suite: {@link WriterLoop} threads on a HikariCP pool of their own,
 * recording into a {@link CriticalSections}. Arguments: lease JDBC URL, schema, fence name,
 * threads, TTL seconds, max hold milliseconds, record JDBC URL, record table, writer name. It
 * prints {@code ready}, starts on {@code go}, and on {@code stop} prints {@code done SECTIONS BUSY
 * UNAVAILABLE FAILURES} and ends. The holder label of its leases is {@code NAME@pid-PID/THREAD}, so
 * a test can tell from the lease row which process holds it.
 */
public final class FaultWriter {
  private FaultWriter() {}

  /** Where a writer's leases and records go. */
  record Target(String leaseUrl, String schema, String fenceName, String recordUrl, String table) {}

  /**
   * Starts a writer process and waits until it is ready (not yet writing: send {@code go}).
   *
   * @param target where it writes
   * @param threads its writer threads
   * @param ttlSeconds the lease TTL (renewed at a third of it)
   * @param maxHoldMillis each section lasts a random 0..this many milliseconds
   * @param writer its name in the record
   * @return the ready process
   */
  static ForkedJvm fork(
      Target target, int threads, int ttlSeconds, int maxHoldMillis, String writer) {
    ForkedJvm jvm =
        ForkedJvm.start(
            List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx128m"),
            FaultWriter.class,
            target.leaseUrl(),
            target.schema(),
            target.fenceName(),
            String.valueOf(threads),
            String.valueOf(ttlSeconds),
            String.valueOf(maxHoldMillis),
            target.recordUrl(),
            target.table(),
            writer);
    try {
      jvm.awaitLine("ready", Duration.ofSeconds(60));
    } catch (AssertionError e) {
      jvm.close();
      throw e;
    }
    return jvm;
  }

  static Target target(
      String leaseUrl, String fenceName, CriticalSections log, EmbeddedDatabase record) {
    return new Target(leaseUrl, "writer_fence", fenceName, record.jdbcUrl(), log.table());
  }

  /**
   * @param args see the class comment
   */
  public static void main(String[] args) throws Exception {
    String leaseUrl = args[0];
    int threads = Integer.parseInt(args[3]);
    Duration ttl = Duration.ofSeconds(Long.parseLong(args[4]));
    int maxHold = Integer.parseInt(args[5]);
    String writer = args[8] + "@pid-" + ProcessHandle.current().pid();
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    try (HikariDataSource pool = pool(leaseUrl, threads + 1)) {
      WriterFence fence = WriterFence.builder(pool).schema(args[1]).defaultTtl(ttl).build();
      fence.status(args[2]); // connects and loads the driver before "ready"
      CriticalSections log = new CriticalSections(unpooled(args[6]), args[7]);
      say("ready");
      awaitCommand(in, "go");
      WriterLoop loop = new WriterLoop(fence, args[2], ttl, log, writer, threads, maxHold);
      awaitCommand(in, "stop");
      WriterLoop.Outcome outcome = loop.stop();
      outcome.failures().forEach(Throwable::printStackTrace);
      fence.close();
      say(outcome.line());
    }
    System.exit(0);
  }

  /** A pool that answers quickly while the database is away, as a writer under faults needs. */
  static HikariDataSource pool(String url, int size) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("fault-writer");
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setConnectionTimeout(1000);
    config.setValidationTimeout(500);
    config.setInitializationFailTimeout(10_000);
    config.addDataSourceProperty("connectTimeout", "2");
    config.addDataSourceProperty("ApplicationName", "writer-fence-fault-writer");
    return new HikariDataSource(config);
  }
}
