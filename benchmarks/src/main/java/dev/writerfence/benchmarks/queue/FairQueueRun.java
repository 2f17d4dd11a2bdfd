package dev.writerfence.benchmarks.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.Fairness;
import dev.writerfence.testing.FairnessReport;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Percentiles;
import dev.writerfence.testing.PgBouncer;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.SectionReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The fair queue measured with separate processes (issue 11): {@code contenders} {@link
 * QueueContender} JVMs, each a {@code WriterFence} with default settings calling {@code
 * WriterFence.run} on one fence name, each section sleeping {@code sectionMicros}. In turn: one
 * writer alone (the throughput to compare with), all of them on direct connections, all of them
 * behind PgBouncer in transaction mode (when {@code pgbouncer} is on the PATH), and all of them
 * waiting idle while this JVM holds the lease (the database's load of idle waiters, counted as
 * transactions in {@code pg_stat_database}). Sections are timed by {@link System#nanoTime()}, which
 * on Linux reads the one {@code CLOCK_MONOTONIC} of the machine, so the processes' sections order
 * on one clock; {@link SectionChecker} checks them and {@link Fairness} reckons the fairness.
 * Written as {@value #FILE}.
 */
public final class FairQueueRun {
  /** The result file in the run's directory. */
  public static final String FILE = "fairqueue.json";

  /** The server connections PgBouncer keeps for all contenders together. */
  static final int BOUNCER_SERVER_CONNECTIONS = 20;

  /** After every contender is ready, how long the machine settles before the first phase. */
  static final Duration STARTUP_SETTLE = Duration.ofSeconds(5);

  /** After {@code wait} is sent, how long the idle waiters settle before the count starts. */
  static final Duration IDLE_SETTLE = Duration.ofSeconds(3);

  private static final List<String> JVM =
      List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xss512k", "-Xmx64m");

  private FairQueueRun() {}

  /**
   * What to run.
   *
   * @param contenders separate contender processes, at least 2
   * @param phaseSeconds how long each contention phase lasts
   * @param idleSeconds how long the idle waiters' statements are counted
   * @param sectionMicros how long each critical section sleeps, microseconds
   */
  public record Settings(int contenders, int phaseSeconds, int idleSeconds, long sectionMicros) {
    /**
     * @throws IllegalArgumentException when there are fewer than 2 contenders or a length is under
     *     1 s
     */
    public Settings {
      if (contenders < 2) {
        throw new IllegalArgumentException(
            "contenders " + contenders + " is not allowed: at least 2");
      }
      if (phaseSeconds < 1 || idleSeconds < 1) {
        throw new IllegalArgumentException(
            "phase " + phaseSeconds + " s, idle " + idleSeconds + " s: each at least 1 s");
      }
    }

    Duration phase() {
      return Duration.ofSeconds(phaseSeconds);
    }

    Duration idle() {
      return Duration.ofSeconds(idleSeconds);
    }
  }

  /**
   * One contention phase.
   *
   * @param route {@code single}, {@code direct} or {@code bouncer}
   * @param contenders processes that contended
   * @param seconds the window's length
   * @param sections sections entered inside the window
   * @param sectionsPerSecond {@code sections / seconds}
   * @param meanSectionMs mean length of a section (entry to exit)
   * @param winsPerContender each contender's sections in the window
   * @param jainIndex Jain's index over {@code winsPerContender}
   * @param everyContenderWon whether each one won at least once
   * @param busyGiveUps calls that gave up busy after the default budget
   * @param unavailable calls that ended unavailable
   * @param timeToWinP50Ms median from a call to its section's entry
   * @param timeToWinP99Ms 99th percentile of it
   * @param timeToWinBoundMs 1.5 × (contenders - 1) × (mean section + hand-over gap p50): the p99 a
   *     fair queue may reach when each waiter ahead takes one section and one hand-over
   * @param handovers how often the fence passed to another process
   * @param handoverGapP50Ms median from one process's section exit to the next one's entry
   * @param handoverGapP99Ms 99th percentile of it
   * @param overlaps sections entered before an earlier one left (every recorded section)
   * @param tokenOrderViolations sections whose fencing token did not rise in order of entry
   */
  public record Phase(
      String route,
      int contenders,
      double seconds,
      int sections,
      double sectionsPerSecond,
      double meanSectionMs,
      List<Long> winsPerContender,
      double jainIndex,
      boolean everyContenderWon,
      long busyGiveUps,
      long unavailable,
      double timeToWinP50Ms,
      double timeToWinP99Ms,
      double timeToWinBoundMs,
      int handovers,
      double handoverGapP50Ms,
      double handoverGapP99Ms,
      int overlaps,
      int tokenOrderViolations) {}

  /**
   * The idle waiters' load.
   *
   * @param waiters processes waiting while the lease was held
   * @param seconds how long the transactions were counted
   * @param transactions transactions the server counted meanwhile (each poll is one statement in a
   *     transaction of its own)
   * @param perSecond {@code transactions / seconds}
   * @param boundPerSecond what the poll schedule allows: the head and the waiter behind it every
   *     poll interval, each further place half as often, at most a quarter of the lapse apart
   */
  public record Idle(
      int waiters, double seconds, long transactions, double perSecond, double boundPerSecond) {}

  /**
   * The whole result.
   *
   * @param settings what ran
   * @param pollIntervalMs the head's poll interval (default)
   * @param lapseSeconds a ticket's lapse (default)
   * @param single one writer alone
   * @param direct every contender on direct connections
   * @param bouncer every contender behind PgBouncer, or {@code null} when it is not installed
   * @param idle the idle waiters' load
   */
  public record Result(
      Settings settings,
      double pollIntervalMs,
      long lapseSeconds,
      Phase single,
      Phase direct,
      Phase bouncer,
      Idle idle) {}

  /**
   * Runs every phase and writes {@value #FILE} into {@code out}.
   *
   * @param jdbcUrl the server's JDBC URL (superuser {@code postgres}, no password)
   * @param postgresPort its port on 127.0.0.1, for PgBouncer
   * @param admin a data source of the superuser, for the counts and the held lease
   * @param settings what to run
   * @param out the run's directory
   * @return the result
   * @throws Exception when a process or the server fails
   */
  public static Result measure(
      String jdbcUrl, int postgresPort, DataSource admin, Settings settings, Path out)
      throws Exception {
    String name = "fairqueue-" + UUID.randomUUID().toString().substring(0, 8);
    Path dir = Files.createTempDirectory("writer-fence-fairqueue-");
    PgBouncer bouncer =
        PgBouncer.binary().isPresent()
            ? PgBouncer.start(postgresPort, "transaction", BOUNCER_SERVER_CONNECTIONS)
            : null;
    List<ForkedJvm> jvms = new ArrayList<>();
    try {
      for (int i = 0; i < settings.contenders(); i++) {
        jvms.add(
            ForkedJvm.start(
                JVM,
                QueueContender.class,
                jdbcUrl,
                bouncer == null ? "-" : bouncer.jdbcUrl(),
                name,
                dir.toString(),
                String.valueOf(i)));
      }
      for (ForkedJvm jvm : jvms) {
        jvm.awaitLine("ready", Duration.ofSeconds(180));
      }
      Thread.sleep(STARTUP_SETTLE.toMillis()); // the last JVMs' start-up off the cores first
      Phase single = phase("single", jvms.subList(0, 1), "direct", settings, dir);
      Phase direct = phase("direct", jvms, "direct", settings, dir);
      Phase behind = bouncer == null ? null : phase("bouncer", jvms, "bouncer", settings, dir);
      Idle idle = idle(jvms, name, admin, settings);
      Result result =
          new Result(
              settings,
              Percentiles.millis(WriterFence.DEFAULT_QUEUE_POLL_INTERVAL),
              WriterFence.DEFAULT_QUEUE_LAPSE.toSeconds(),
              single,
              direct,
              behind,
              idle);
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(out.resolve(FILE).toFile(), result);
      return result;
    } finally {
      jvms.forEach(j -> j.send("quit"));
      jvms.forEach(ForkedJvm::close);
      if (bouncer != null) {
        bouncer.close();
      }
    }
  }

  private static Phase phase(
      String label, List<ForkedJvm> jvms, String route, Settings settings, Path dir)
      throws IOException {
    long start = System.nanoTime() + Duration.ofMillis(500).toNanos();
    long end = start + settings.phase().toNanos();
    for (ForkedJvm jvm : jvms) {
      jvm.send("run " + route + " " + settings.sectionMicros() + " " + start + " " + end);
    }
    long busy = 0;
    long unavailable = 0;
    Duration timeout = settings.phase().plus(Duration.ofSeconds(120));
    for (ForkedJvm jvm : jvms) {
      String[] done = jvm.awaitLine("done ", timeout).split(" ");
      busy += Long.parseLong(done[2]);
      unavailable += Long.parseLong(done[3]);
    }
    List<Section> all = new ArrayList<>();
    List<Section> window = new ArrayList<>();
    List<Duration> waits = new ArrayList<>();
    List<String> writers = new ArrayList<>();
    long sectionNanos = 0;
    for (int i = 0; i < jvms.size(); i++) {
      String writer = "c" + i;
      writers.add(writer);
      for (String line : Files.readAllLines(dir.resolve(route + "-" + i + ".tsv"))) {
        String[] f = line.split("\t");
        long entry = Long.parseLong(f[1]);
        long exit = Long.parseLong(f[2]);
        Section s =
            new Section(
                writer,
                Long.parseLong(f[0]),
                Instant.EPOCH.plusNanos(entry),
                Instant.EPOCH.plusNanos(exit));
        all.add(s);
        if (entry >= start && entry < end) {
          window.add(s);
          waits.add(Duration.ofNanos(Long.parseLong(f[3])));
          sectionNanos += exit - entry;
        }
      }
    }
    SectionReport exclusion = SectionChecker.check(all);
    FairnessReport fairness = Fairness.report(writers, window, Section::writer, waits, busy);
    double seconds = settings.phase().toNanos() / 1e9;
    double meanSectionMs = window.isEmpty() ? 0 : sectionNanos / 1e6 / window.size();
    double gapMs = Percentiles.millis(fairness.handoverGap().p50());
    return new Phase(
        label,
        jvms.size(),
        seconds,
        window.size(),
        window.size() / seconds,
        meanSectionMs,
        List.copyOf(fairness.winsPerWriter().values()),
        fairness.jainIndex(),
        fairness.everyWriterWon(),
        busy,
        unavailable,
        Percentiles.millis(fairness.timeToWin().p50()),
        Percentiles.millis(fairness.timeToWin().p99()),
        1.5 * (jvms.size() - 1) * (meanSectionMs + gapMs),
        fairness.handovers(),
        gapMs,
        Percentiles.millis(fairness.handoverGap().p99()),
        exclusion.count(SectionReport.Kind.OVERLAP),
        exclusion.count(SectionReport.Kind.TOKEN_ORDER));
  }

  private static Idle idle(List<ForkedJvm> jvms, String name, DataSource admin, Settings settings)
      throws Exception {
    try (WriterFence holder = WriterFence.builder(admin).build()) {
      FenceLease lease = holder.acquire(FenceRequest.of(name));
      long counted;
      try {
        jvms.forEach(j -> j.send("wait"));
        Thread.sleep(IDLE_SETTLE.toMillis());
        long before = transactions(admin);
        Thread.sleep(settings.idle().toMillis());
        counted = transactions(admin) - before;
      } finally {
        holder.release(lease);
      }
      for (ForkedJvm jvm : jvms) {
        jvm.awaitLine("won", Duration.ofSeconds(120));
      }
      double seconds = settings.idle().toNanos() / 1e9;
      return new Idle(
          jvms.size(),
          seconds,
          counted,
          counted / seconds,
          pollBoundPerSecond(
              jvms.size(),
              WriterFence.DEFAULT_QUEUE_POLL_INTERVAL,
              WriterFence.DEFAULT_QUEUE_LAPSE));
    }
  }

  /**
   * The polls per second that {@code waiters} idle waiters may make on the documented schedule: the
   * head and the waiter behind it every {@code pollInterval}, each place further back half as
   * often, never less often than a quarter of {@code lapse}.
   *
   * @param waiters waiters in the queue
   * @param pollInterval the head's interval
   * @param lapse a ticket's lapse
   * @return polls per second
   */
  static double pollBoundPerSecond(int waiters, Duration pollInterval, Duration lapse) {
    double slowest = lapse.toNanos() / 4.0;
    double sum = 0;
    for (int place = 1; place <= waiters; place++) {
      double interval = pollInterval.toNanos() * Math.pow(2, Math.max(0, place - 2));
      sum += 1e9 / Math.min(interval, slowest);
    }
    return sum;
  }

  /** Transactions committed or rolled back in the {@code postgres} database so far. */
  private static long transactions(DataSource admin) throws SQLException {
    try (Connection c = admin.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT xact_commit + xact_rollback FROM pg_stat_database"
                    + " WHERE datname = 'postgres'")) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
