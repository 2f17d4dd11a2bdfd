package dev.writerfence.benchmarks.queue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
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
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The fair queue measured with separate processes (issues 11 and 27): {@code contenders} {@link
 * QueueContender} JVMs, each a {@code WriterFence} with default settings calling {@code
 * WriterFence.run} on one fence name, each section sleeping {@code sectionMicros}. First an
 * unmeasured warm-up round of all of them (each JVM loads and compiles the queue's code and proves
 * its release listener); then in turn: one writer alone (the throughput to compare with), {@link
 * Settings#fewer()} and then all of them on direct connections, all of them behind PgBouncer in
 * transaction mode (when {@code pgbouncer} is on the PATH), all of them waiting idle while this JVM
 * holds the lease with minutes left (statements counted by {@code pg_stat_statements}, the head's
 * polls by its ticket's refreshes: {@link WaitingPhases}), and a dead head of the queue, stopped
 * and killed; last, the rows the run left in {@code queue_status}. Each phase records how every
 * process's queued writers were woken ({@link WriterFence#queueWakeUp()}). Sections are timed by
 * {@link System#nanoTime()}, which on Linux reads the one {@code CLOCK_MONOTONIC} of the machine,
 * so the processes' sections order on one clock; {@link SectionChecker} checks them and {@link
 * Fairness} reckons the fairness. Written as {@value #FILE}.
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

  /** The unmeasured round before the phases. */
  static final Duration WARM_UP = Duration.ofSeconds(3);

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

    /**
     * @return the smaller number of contenders measured beside all of them: 16 from 32 contenders
     *     on (issue 27's 16 and 64), else half of them
     */
    public int fewer() {
      return contenders >= 32 ? 16 : Math.max(2, contenders / 2);
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
   * @param wakeUpModes how many contenders ended the phase in each wake-up mode ({@code notified},
   *     {@code polled}, {@code pending}: {@link WriterFence#queueWakeUp()})
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
      int tokenOrderViolations,
      Map<String, Integer> wakeUpModes) {}

  /**
   * The idle waiters' load.
   *
   * @param waiters processes waiting while the lease was held
   * @param seconds how long the statements were counted
   * @param transactions statements the server counted meanwhile ({@code counter}); each poll is one
   *     statement in a transaction of its own
   * @param perSecond {@code transactions / seconds}
   * @param boundPerSecond what the poll schedule allows: the head and the waiter behind it every
   *     poll interval, each further place half as often, at most a quarter of the lapse apart
   * @param counter what counted them: {@code pg_stat_statements} (top-level statements, counted at
   *     once) or {@code pg_stat_database} (transactions, flushed by each backend up to seconds
   *     late) when the extension is not loaded
   * @param perWaiterPerSecond {@code perSecond / waiters}
   * @param holderLeftSeconds what the holder's lease had left when the count began
   * @param headPolls polls of the waiter at the head of the queue while counted (each poll
   *     refreshes its ticket: distinct {@code refreshed_at} values of {@code queue_status} sampled
   *     every {@value WaitingPhases#SAMPLE_MILLIS} ms)
   * @param headPollsPerSecond {@code headPolls / seconds}
   * @param wakeUpModes how many waiters were woken in each mode, as each said when it won
   */
  public record Idle(
      int waiters,
      double seconds,
      long transactions,
      double perSecond,
      double boundPerSecond,
      String counter,
      double perWaiterPerSecond,
      double holderLeftSeconds,
      long headPolls,
      double headPollsPerSecond,
      Map<String, Integer> wakeUpModes) {}

  /**
   * A dead head of the queue: the waiter at place 1 stopped ({@code SIGSTOP}) or killed ({@code
   * SIGKILL}) while another held the lease, the waiter behind it at place 2; then the lease
   * released.
   *
   * @param signal {@code SIGSTOP} or {@code SIGKILL}
   * @param delayMs from the release to the section entry of the waiter behind the dead head
   * @param nextMode the wake-up mode of that waiter when it won
   */
  public record DeadHead(String signal, double delayMs, String nextMode) {}

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
   * @param fewer {@link Settings#fewer()} contenders on direct connections
   * @param deadHeads a stopped and a killed head of the queue, in that order
   * @param queueRowsAfter rows of {@code queue_status} for the run's fence name after the run,
   *     lapsed tickets included, once every contender had quit
   */
  public record Result(
      Settings settings,
      double pollIntervalMs,
      long lapseSeconds,
      Phase single,
      Phase direct,
      Phase bouncer,
      Idle idle,
      Phase fewer,
      List<DeadHead> deadHeads,
      long queueRowsAfter) {}

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
      // Unmeasured: every contender runs the queue's code once (classes loaded, compiled) and
      // proves its listener, so that the first measured phase does not time the JVMs' warm-up.
      phase("warm-up", jvms, "direct", settings, WARM_UP, dir);
      Phase single = phase("single", jvms.subList(0, 1), "direct", settings, dir);
      Phase fewer = phase("direct", jvms.subList(0, settings.fewer()), "direct", settings, dir);
      Phase direct = phase("direct", jvms, "direct", settings, dir);
      Phase behind = bouncer == null ? null : phase("bouncer", jvms, "bouncer", settings, dir);
      WaitingPhases waiting = new WaitingPhases(admin, name);
      Idle idle = waiting.idle(jvms, settings.idle(), IDLE_SETTLE);
      List<DeadHead> deadHeads =
          jvms.size() < 4
              ? List.of()
              : List.of(
                  waiting.deadHead("SIGSTOP", jvms.get(0), "c0", jvms.get(1), "c1"),
                  waiting.deadHead("SIGKILL", jvms.get(2), "c2", jvms.get(3), "c3"));
      quit(jvms);
      Result result =
          new Result(
              settings,
              Percentiles.millis(WriterFence.DEFAULT_QUEUE_POLL_INTERVAL),
              WriterFence.DEFAULT_QUEUE_LAPSE.toSeconds(),
              single,
              direct,
              behind,
              idle,
              fewer,
              deadHeads,
              waiting.queueRows());
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(out.resolve(FILE).toFile(), result);
      return result;
    } finally {
      quit(jvms);
      if (bouncer != null) {
        bouncer.close();
      }
    }
  }

  /** Tells every contender still running to quit and waits for it (a killed one is gone). */
  private static void quit(List<ForkedJvm> jvms) {
    for (ForkedJvm jvm : jvms) {
      if (jvm.process().isAlive()) {
        jvm.send("quit");
      }
    }
    jvms.forEach(ForkedJvm::close);
  }

  private static Phase phase(
      String label, List<ForkedJvm> jvms, String route, Settings settings, Path dir)
      throws IOException {
    return phase(label, jvms, route, settings, settings.phase(), dir);
  }

  private static Phase phase(
      String label,
      List<ForkedJvm> jvms,
      String route,
      Settings settings,
      Duration length,
      Path dir)
      throws IOException {
    long start = System.nanoTime() + Duration.ofMillis(500).toNanos();
    long end = start + length.toNanos();
    for (ForkedJvm jvm : jvms) {
      jvm.send("run " + route + " " + settings.sectionMicros() + " " + start + " " + end);
    }
    long busy = 0;
    long unavailable = 0;
    Duration timeout = length.plus(Duration.ofSeconds(120));
    Map<String, Integer> modes = new TreeMap<>();
    for (ForkedJvm jvm : jvms) {
      String[] done = jvm.awaitLine("done ", timeout).split(" ");
      busy += Long.parseLong(done[2]);
      unavailable += Long.parseLong(done[3]);
      modes.merge(done[4], 1, Integer::sum);
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
    double seconds = length.toNanos() / 1e9;
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
        exclusion.count(SectionReport.Kind.TOKEN_ORDER),
        modes);
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
}
