package dev.writerfence.benchmarks.pool;

import dev.writerfence.benchmarks.server.BenchDatabase;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.ServerSessions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Case C34's load as a measurement (issue 13): {@value #CALLS} virtual threads on {@value #NAMES}
 * fence names, each call sleeping {@value #SECTION_MILLIS} ms inside the fence, once through the
 * agent ({@code fence.methods}, the pool shaded into its jar) and once through AspectJ
 * (compile-time woven, the process fence's pool), each with the same {@code datasource.pool-size},
 * on the durable benchmark server. Every run is a fresh JVM on Temurin 25 ({@link
 * ForkedJvm#newestJdk()}); the launcher counts the fence role's server sessions meanwhile ({@link
 * ServerSessions}). Prints one Markdown table row per run: mode, pool size, calls that ran, busy,
 * unavailable, wall time from the start signal to the last call's end, most sessions at once.
 *
 * <p>Usage: {@code PoolLoadRun [POOL_SIZES [REPEATS [speed-first]]]}, pool sizes comma-separated
 * (default {@code 4}), repeats per mode and size (default 3); {@code speed-first} runs on zonky's
 * speed-first server (fsync off) instead of the durable one. The agent jar is {@code
 * -Dbench.agent.jar} (default {@code agent/target/writer-fence-agent.jar}); the load's class path
 * is this JVM's.
 */
public final class PoolLoadRun {
  static final int NAMES = 10;
  static final int CALLS = 1_000;
  static final int SECTION_MILLIS = 2;
  private static final String ROLE = "vt_load";
  private static final Pattern OUTCOMES =
      Pattern.compile(
          "outcomes ran=(\\d+) busy=(\\d+) unavailable=(\\d+) other=(\\d+) wall-ms=(\\d+)");

  private PoolLoadRun() {}

  /**
   * @param args pool sizes and repeats, both optional
   * @throws Exception whatever stops the run
   */
  public static void main(String[] args) throws Exception {
    String java =
        ForkedJvm.newestJdk()
            .orElseThrow(() -> new IllegalStateException("no JDK 21 or newer for virtual threads"));
    List<Integer> sizes = new ArrayList<>();
    for (String s : (args.length > 0 ? args[0] : "4").split(",")) {
      sizes.add(Integer.parseInt(s.strip()));
    }
    int repeats = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    Path agentJar =
        Path.of(System.getProperty("bench.agent.jar", "agent/target/writer-fence-agent.jar"))
            .toAbsolutePath();
    boolean durable = !(args.length > 2 && args[2].equals("speed-first"));
    try (BenchDatabase db = BenchDatabase.start(durable)) {
      try (Connection c = db.dataSource().getConnection();
          Statement st = c.createStatement()) {
        st.execute("CREATE ROLE " + ROLE + " LOGIN");
      }
      FenceSchema.defaults().grantTo(ROLE).install(db.dataSource());
      System.out.println(
          "| mode | pool size | ran | busy | unavailable | wall time | sessions at most |");
      System.out.println("| --- | --- | --- | --- | --- | --- | --- |");
      for (int size : sizes) {
        for (int r = 0; r < repeats; r++) {
          for (String mode : List.of("agent", "aspectj")) {
            System.out.println(run(java, db, agentJar, mode, size));
          }
        }
      }
    }
  }

  private static String run(String java, BenchDatabase db, Path agentJar, String mode, int size)
      throws InterruptedException {
    List<String> options = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    options.add("-Dwriter-fence.datasource.url=" + db.jdbcUrl());
    options.add("-Dwriter-fence.datasource.username=" + ROLE);
    options.add("-Dwriter-fence.datasource.pool-size=" + size);
    if (mode.equals("agent")) {
      options.add("-javaagent:" + agentJar);
      options.add(
          "-Dwriter-fence.fence.methods="
              + PlainPoolWriter.class.getName()
              + "#write=vt-load:{0}/bench");
    }
    ServerSessions sessions = ServerSessions.of(db.dataSource(), ROLE);
    try (ForkedJvm load =
        ForkedJvm.startOn(
            java,
            options,
            ForkedJvm.testClassPath(),
            VirtualThreadLoad.class.getName(),
            mode,
            String.valueOf(NAMES),
            String.valueOf(CALLS),
            String.valueOf(SECTION_MILLIS))) {
      sessions.start();
      String line;
      try {
        line = load.awaitLine("outcomes", Duration.ofMinutes(5));
      } finally {
        sessions.stop();
      }
      Matcher m = OUTCOMES.matcher(line);
      if (!m.matches() || !m.group(4).equals("0")) {
        throw new IllegalStateException(
            mode + " run ended otherwise: " + line + "\n" + load.stderr());
      }
      return String.format(
          "| %s | %d | %s | %s (%.1f %%) | %s | %.2f s | %d |",
          mode.equals("agent") ? "agent, `fence.methods`" : "AspectJ (compile-time), process fence",
          size,
          m.group(1),
          m.group(2),
          100.0 * Integer.parseInt(m.group(2)) / CALLS,
          m.group(3),
          Integer.parseInt(m.group(5)) / 1000.0,
          sessions.max());
    }
  }
}
