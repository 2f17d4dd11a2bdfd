package dev.writerfence.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.writerfence.benchmarks.jmh.AgentWeavingBenchmark;
import dev.writerfence.benchmarks.jmh.AuditBenchmark;
import dev.writerfence.benchmarks.jmh.ContentionBenchmark;
import dev.writerfence.benchmarks.jmh.CycleBenchmark;
import dev.writerfence.benchmarks.jmh.PropagationBenchmark;
import dev.writerfence.benchmarks.jmh.ScaleBenchmark;
import dev.writerfence.benchmarks.jmh.StatementBenchmark;
import dev.writerfence.benchmarks.jmh.WeavingBenchmark;
import dev.writerfence.benchmarks.measure.AgentStartup;
import dev.writerfence.benchmarks.measure.ContentionRecord;
import dev.writerfence.benchmarks.measure.ContentionShape;
import dev.writerfence.benchmarks.measure.RoundTrips;
import dev.writerfence.benchmarks.measure.TableGrowth;
import dev.writerfence.benchmarks.peers.BenchTarget;
import dev.writerfence.benchmarks.peers.LockBackend;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import dev.writerfence.benchmarks.report.Environment;
import dev.writerfence.benchmarks.report.Report;
import dev.writerfence.benchmarks.server.BenchDatabase;
import dev.writerfence.benchmarks.server.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs one plan end to end: starts the durable PostgreSQL (and zonky's speed-first one beside it in
 * the full plan) and redis-server when installed, runs every JMH benchmark against them, counts
 * round trips, and runs the fair queue with separate contender processes ({@link FairQueueRun});
 * then on a second, speed-first server measures table growth (and in the full plan the cycles
 * beside the durable ones); then writes the tables and charts ({@link Report}).
 *
 * <p>Usage: {@code BenchmarkMain --smoke|--quick|--full OUT_DIR [DOC]}: raw JMH JSON and the other
 * measurements go to {@code OUT_DIR}; {@code DOC}, when given, is the Markdown file whose results
 * section is rewritten.
 */
public final class BenchmarkMain {
  /**
   * The agent jar {@code mvn package -pl agent} builds (run.sh passes a copy as {@code
   * -Dbench.agent.jar}, so a rebuild during the run cannot replace it under a JVM).
   */
  static final Path AGENT_JAR =
      Path.of(System.getProperty("bench.agent.jar", "agent/target/writer-fence-agent.jar"));

  /** The agent module's test classes, with its StartupCost harness (a copy, likewise). */
  static final Path AGENT_TEST_CLASSES =
      Path.of(System.getProperty("bench.agent.test-classes", "agent/target/test-classes"));

  /**
   * System property: {@code audit} runs only the audit benchmark (no database), {@code propagation}
   * only the propagation benchmark (no database), {@code fairqueue} only the fair queue's run
   * ({@link FairQueueRun}), into an existing run's directory, then the report (run.sh: {@code
   * BENCH_ONLY=audit}, {@code BENCH_ONLY=propagation} or {@code BENCH_ONLY=fairqueue}).
   */
  static final String ONLY = "bench.only";

  /** A JDBC URL no benchmark that gets it connects to. */
  private static final String UNUSED_JDBC_URL = "jdbc:postgresql://127.0.0.1:9/unused";

  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private BenchmarkMain() {}

  /**
   * @param args the plan, the output directory, and optionally the Markdown report to update
   * @throws Exception whatever stops the run; it exits non-zero then
   */
  public static void main(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException(
          "usage: BenchmarkMain --smoke|--quick|--full OUT_DIR [DOC]");
    }
    Plan plan = Plan.of(args[0]);
    Path out = Path.of(args[1]).toAbsolutePath();
    Files.createDirectories(out);
    if ("audit".equals(System.getProperty(ONLY))) {
      // Adds the audit rows to a run's directory and reports it again; the rest stays as it was.
      audit(plan, new BenchTarget(UNUSED_JDBC_URL, null), out);
      Report.write(out, args.length > 2 ? Path.of(args[2]) : null);
      return;
    }
    if ("propagation".equals(System.getProperty(ONLY))) {
      // Adds the propagation rows to a run's directory and reports it again.
      propagation(plan, new BenchTarget(UNUSED_JDBC_URL, null), out);
      Report.write(out, args.length > 2 ? Path.of(args[2]) : null);
      return;
    }
    if ("fairqueue".equals(System.getProperty(ONLY))) {
      // Adds (or replaces) the fair queue's result in a run's directory and reports it again.
      try (BenchDatabase durable = BenchDatabase.start(true)) {
        fairQueue(plan, durable, out);
      }
      Report.write(out, args.length > 2 ? Path.of(args[2]) : null);
      return;
    }
    try (var stale = Files.newDirectoryStream(out, "*.{json,png}")) {
      for (Path p : stale) {
        Files.delete(p); // only this run's results may be charted together
      }
    }
    long started = System.nanoTime();
    Optional<RedisServer> redis = RedisServer.startIfInstalled();
    try (BenchDatabase durable = BenchDatabase.start(true)) {
      BenchTarget target =
          new BenchTarget(durable.jdbcUrl(), redis.map(RedisServer::url).orElse(null));
      Environment.write(out, plan, durable, redis.isPresent());
      runPlan(plan, target, out);
      fairQueue(plan, durable, out);
      step("round trips");
      JSON.writeValue(
          out.resolve("roundtrips.json").toFile(),
          RoundTrips.count(target, redis.orElse(null), plan.roundTripCycles()));
    } finally {
      redis.ifPresent(RedisServer::close);
    }
    // The speed-first server (zonky's defaults, fsync off), labelled wherever reported: the
    // cycle rows beside the durable ones in the full plan, and the table growth in every plan
    // (a table's size does not depend on fsync; 10^6 durable cycles would take hours here).
    try (BenchDatabase fast = BenchDatabase.start(false)) {
      BenchTarget target = new BenchTarget(fast.jdbcUrl(), null);
      Environment.writeSpeedFirst(out, fast);
      if (plan.speedFirst()) {
        step("cycle, speed-first server");
        jmh(plan, target, out, "cycle-speedfirst.json", CycleBenchmark.class, 1)
            .param("backend", pgBackends())
            .run();
      }
      step("table growth (speed-first server)");
      JSON.writeValue(
          out.resolve("growth.json").toFile(),
          TableGrowth.measure(target, plan.growthCycles(), "speed-first (fsync off)"));
    }
    step("report");
    Report.write(out, args.length > 2 ? Path.of(args[2]) : null);
    System.out.printf(
        "benchmarks (%s) took %d s; results in %s%n",
        plan.name(), (System.nanoTime() - started) / 1_000_000_000L, out);
  }

  private static void runPlan(Plan plan, BenchTarget target, Path out) throws Exception {
    List<String> cycleBackends = new ArrayList<>(List.of(pgBackends()));
    if (target.redisUrl() != null) {
      cycleBackends.add(LockBackend.Kind.REDISSON.id());
    }
    for (int threads : plan.cycleThreads()) {
      step("cycle, " + threads + " thread(s)");
      jmh(plan, target, out, "cycle-t" + threads + ".json", CycleBenchmark.class, threads)
          .param("backend", cycleBackends.toArray(String[]::new))
          .run();
    }
    step("SQL statements beside a plain durable UPDATE, raw JDBC");
    jmh(plan, target, out, "statements.json", StatementBenchmark.class, 1).run();
    for (Plan.Contention contention : plan.contention()) {
      ContentionShape shape = contention.shape();
      for (int threads : plan.contentionThreads()) {
        step("contention, " + shape.shortLabel() + ", " + threads + " thread(s)");
        jmh(plan, target, out, shape.jmhFile(threads), ContentionBenchmark.class, threads)
            .param("backend", contention.backends().toArray(String[]::new))
            .param("contenders", shape.contenders().id())
            .param("mode", shape.mode().id())
            .run();
      }
    }
    step("scale of names");
    jmh(plan, target, out, "scale.json", ScaleBenchmark.class, 1)
        .param("names", plan.scaleNames().toArray(String[]::new))
        .run();
    step("weaving, no database");
    jmh(plan, target, out, "weaving.json", WeavingBenchmark.class, 1).run();
    if (Files.isRegularFile(AGENT_JAR)) {
      step("weaving through the agent, no database");
      // The agent needs a JVM of its own: forked even in the smoke plan, so that every benchmark
      // class runs there at least once (a class name the agent no longer has fails it).
      jmh(
              plan,
              target,
              out,
              "weaving-agent.json",
              AgentWeavingBenchmark.class,
              1,
              "-javaagent:" + AGENT_JAR.toAbsolutePath(),
              // turns the agent's fence feature on; never connected to (AgentNoopFence)
              "-Dwriter-fence.datasource.url=" + UNUSED_JDBC_URL)
          .forks(Math.max(1, plan.forks()))
          .run();
    }
    audit(plan, target, out);
    propagation(plan, target, out);
    if (Files.isRegularFile(AGENT_JAR) && Files.isDirectory(AGENT_TEST_CLASSES)) {
      step("agent start-up (the agent module's StartupCost harness)");
      int jdks = AgentStartup.measure(AGENT_JAR, AGENT_TEST_CLASSES, plan.startupRuns(), out);
      // The smoke asserts no timing, only that the harness still runs and reports (CI runs it).
      if (jdks == 0 && plan.name().equals("smoke")) {
        throw new IllegalStateException(
            "the agent's start-up harness gave no result; its output is printed above");
      }
    }
  }

  /**
   * The audit advice's cost: {@link AuditBenchmark} without the agent (in this JVM when the plan
   * does not fork) and, when the plan forks and the agent jar is built, in a fork with the agent in
   * audit mode {@code log} over the benchmark's {@code audited} directory. The agent's own report
   * goes to {@code audit-report.json}: it must list the unfenced write's call site only. A third
   * fork runs {@link AuditBenchmark#ENFORCE_METHODS} in audit mode {@code enforce} into {@code
   * audit-enforce.json}.
   */
  private static void audit(Plan plan, BenchTarget target, Path out) throws Exception {
    Path dir = Files.createTempDirectory("writer-fence-audit-bench");
    Path audited = AuditBenchmark.prepare(dir);
    String dirArg = "-D" + AuditBenchmark.DIR + "=" + dir;
    System.setProperty(AuditBenchmark.DIR, dir.toString());
    step("audit advice: file calls without the agent");
    jmh(plan, target, out, "audit-noagent.json", AuditBenchmark.class, 1, dirArg).run();
    if (plan.forks() > 0 && Files.isRegularFile(AGENT_JAR)) {
      step("audit advice: file calls in a fork with the agent (audit.mode=log)");
      jmh(
              plan,
              target,
              out,
              "audit-agent.json",
              AuditBenchmark.class,
              1,
              dirArg,
              "-javaagent:" + AGENT_JAR.toAbsolutePath(),
              "-Dwriter-fence.audit.mode=log",
              "-Dwriter-fence.audit.paths=" + audited,
              "-Dwriter-fence.audit.report=" + out.resolve("audit-report.json"))
          .run();
      step("audit advice: file calls in a fork with the agent (audit.mode=enforce)");
      // Enforce mode resolves real paths for writes outside the roots (ADR 0074); the unfenced
      // writes would be refused there, so only the methods it lets through run.
      jmh(
              plan,
              target,
              out,
              "audit-enforce.json",
              AuditBenchmark.class,
              1,
              dirArg,
              "-javaagent:" + AGENT_JAR.toAbsolutePath(),
              "-Dwriter-fence.audit.mode=enforce",
              "-Dwriter-fence.audit.paths=" + audited)
          .only(AuditBenchmark.ENFORCE_METHODS)
          .run();
    }
  }

  /**
   * The cost of carrying holds to a hand-off: {@link PropagationBenchmark} in a fork without the
   * agent and, when the plan forks and the agent jar is built, in forks with the agent, propagation
   * off and on.
   */
  private static void propagation(Plan plan, BenchTarget target, Path out) throws Exception {
    step("propagation: a hand-off without the agent");
    jmh(plan, target, out, "propagation-noagent.json", PropagationBenchmark.class, 1).run();
    if (plan.forks() > 0 && Files.isRegularFile(AGENT_JAR)) {
      for (String on : new String[] {"false", "true"}) {
        step("propagation: a hand-off with the agent, agent.propagation=" + on);
        jmh(
                plan,
                target,
                out,
                on.equals("true") ? "propagation-on.json" : "propagation-off.json",
                PropagationBenchmark.class,
                1,
                "-javaagent:" + AGENT_JAR.toAbsolutePath(),
                "-Dwriter-fence.audit.mode=log",
                "-Dwriter-fence.agent.propagation=" + on)
            .run();
      }
    }
  }

  private static void fairQueue(Plan plan, BenchDatabase durable, Path out) throws Exception {
    step("fair queue, " + plan.fairQueue().contenders() + " separate contender processes");
    FairQueueRun.measure(
        durable.jdbcUrl(), durable.port(), durable.dataSource(), plan.fairQueue(), out);
  }

  private static String[] pgBackends() {
    return new String[] {
      LockBackend.Kind.LEASE.id(),
      LockBackend.Kind.ADVISORY.id(),
      LockBackend.Kind.SHEDLOCK.id(),
      LockBackend.Kind.JDBC_LOCK_REGISTRY.id(),
      LockBackend.Kind.RAW_FLOOR.id()
    };
  }

  /** A JMH run of one benchmark class, as the plan says, writing its JSON into {@code out}. */
  private static Jmh jmh(
      Plan plan,
      BenchTarget target,
      Path out,
      String file,
      Class<?> benchmark,
      int threads,
      String... jvmArgs) {
    List<String> props = new ArrayList<>(List.of(jvmArgs));
    props.add("-D" + BenchTarget.JDBC_URL + "=" + target.jdbcUrl());
    props.add("-D" + ContentionRecord.OUT_DIR + "=" + out);
    if (target.redisUrl() != null) {
      props.add("-D" + BenchTarget.REDIS_URL + "=" + target.redisUrl());
    }
    // With no fork the benchmarks run in this JVM and read the same values from here.
    System.setProperty(BenchTarget.JDBC_URL, target.jdbcUrl());
    System.setProperty(ContentionRecord.OUT_DIR, out.toString());
    if (target.redisUrl() != null) {
      System.setProperty(BenchTarget.REDIS_URL, target.redisUrl());
    } else {
      System.clearProperty(BenchTarget.REDIS_URL);
    }
    props.add("-Xmx1g");
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include("\\." + benchmark.getSimpleName() + "\\.")
            .forks(plan.forks())
            .threads(threads)
            .warmupIterations(plan.warmups())
            .warmupTime(TimeValue.seconds(plan.warmupSeconds()))
            .measurementIterations(plan.iterations())
            .measurementTime(TimeValue.seconds(plan.iterationSeconds()))
            .jvmArgsAppend(props.toArray(String[]::new))
            .shouldFailOnError(true)
            .resultFormat(ResultFormatType.JSON)
            .result(out.resolve(file).toString());
    return new Jmh(options);
  }

  /** Options being built for one JMH run. */
  private record Jmh(ChainedOptionsBuilder options) {
    Jmh param(String name, String... values) {
      options.param(name, values);
      return this;
    }

    /**
     * Runs only these methods of the benchmark class: every other method's name is excluded (JMH
     * runs what an include matches and no exclude does).
     */
    Jmh only(List<String> methods) {
      options.exclude("\\.(?!(?:" + String.join("|", methods) + ")$)[^.]+$");
      return this;
    }

    Jmh forks(int forks) {
      options.forks(forks);
      return this;
    }

    void run() throws Exception {
      new Runner(options.build()).run();
    }
  }

  private static void step(String what) {
    System.out.println("== " + what);
  }
}
