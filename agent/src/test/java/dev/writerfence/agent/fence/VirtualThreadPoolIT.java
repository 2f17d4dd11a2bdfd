package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.acme.legacy.VirtualThreadWriters;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.SectionReport;
import dev.writerfence.testing.ServerSessions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Case C34: 1,000 virtual threads (Temurin 25) call a method that the agent fences by {@code
 * fence.methods}, on 10 fence names. The agent's fence takes its connections from the HikariCP pool
 * shaded into its jar, so the database sessions of the fence's role stay within {@code
 * datasource.pool-size} however many threads call; no two sections of one name overlap; every call
 * ran or answered busy or unavailable with the contract's exception. The application runs its own
 * copy of core, which sees each lease the agent took, and its own, older HikariCP, configured by
 * the system property HikariCP reads, which the agent's pool does not read.
 */
class VirtualThreadPoolIT {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final int POOL_SIZE = 5;
  private static final int NAMES = 10;
  private static final int CALLS = 1_000;
  private static final int SECTION_MILLIS = 2;

  /**
   * Sessions the fence's role may have beyond its pool: one. HikariCP never holds more than its
   * maximum, but a connection it retires (a broken one) is closed while its replacement opens, and
   * the server lists a backend until the backend has exited, a moment after the client's close.
   */
  private static final int SLACK = 1;

  private static final Pattern SECTION = Pattern.compile("section (\\d+) (\\d+) (\\d+) (\\d+)");
  private static final Pattern OUTCOMES =
      Pattern.compile(
          "outcomes ran=(\\d+) busy=(\\d+) unavailable=(\\d+) other=(\\d+) no-lease=(\\d+)"
              + " wall-ms=(\\d+)");

  @TempDir Path dir;

  @Test
  void C34_thousandVirtualThreadsOnTenNamesStayWithinTheAgentsPoolAndNeverOverlap()
      throws Exception {
    Optional<String> java = ForkedJvm.newestJdk();
    assumeTrue(
        java.isPresent(),
        "C34 needs a JDK 21 or newer for virtual threads: none at"
            + " /usr/lib/jvm/temurin-25-jdk-amd64 and WRITER_FENCE_NEWEST_JDK is not set");
    String role = "c34_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    DB.execute("CREATE ROLE " + role + " LOGIN");
    FenceSchema.defaults().grantTo(role).install(DB.dataSource());
    String prefix = FenceNames.random("c34");

    Path agentConfig =
        LegacyJvm.config(
            dir,
            "datasource.url=" + DB.jdbcUrl(),
            "datasource.username=" + role,
            "datasource.pool-size=" + POOL_SIZE,
            "fence.methods=com.acme.legacy.VirtualThreadWriters#write=" + prefix + ":{0}/vt");
    // The application's own pool, configured the way HikariCP reads it from a system property.
    Path appPool = dir.resolve("app-pool.properties");
    Files.write(
        appPool,
        List.of(
            "jdbcUrl=" + DB.jdbcUrl(),
            "username=postgres",
            "poolName=app-pool",
            "maximumPoolSize=2",
            "dataSource.ApplicationName=legacy-app"),
        StandardCharsets.UTF_8);
    List<String> options = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    options.add("-javaagent:" + LegacyJvm.AGENT_JAR + "=config=" + agentConfig);
    options.add("-Dhikaricp.configurationFile=" + appPool);

    ServerSessions sampler = ServerSessions.of(DB.dataSource(), role);
    String outcomes;
    List<String> output;
    try (ForkedJvm app =
        ForkedJvm.startOn(
            java.get(),
            options,
            appClassPath(),
            VirtualThreadWriters.class.getName(),
            prefix,
            String.valueOf(NAMES),
            String.valueOf(CALLS),
            String.valueOf(SECTION_MILLIS))) {
      assertThat(app.awaitLine("app-pool", LegacyJvm.START))
          .as("the application's own pool read its configuration file")
          .isEqualTo("app-pool app-pool legacy-app");
      app.awaitLine("ready", LegacyJvm.START);
      sampler.start();
      try {
        app.send("go");
        outcomes = app.awaitLine("outcomes", Duration.ofMinutes(5));
      } finally {
        sampler.stop();
      }
      output = app.output();
      assertThat(app.awaitExit(Duration.ofMinutes(1))).as(app.stderr()).isZero();
      assertThat(app.stderr())
          .as("the agent's pool logs its warnings only, not its start-up")
          .doesNotContain("writer-fence - Start");
    }

    Matcher m = OUTCOMES.matcher(outcomes);
    assertThat(m.matches()).as(outcomes).isTrue();
    int ran = Integer.parseInt(m.group(1));
    int busy = Integer.parseInt(m.group(2));
    int unavailable = Integer.parseInt(m.group(3));
    System.out.printf(
        "C34: %d calls on %d names, pool %d: ran %d, busy %d (%.1f %%), unavailable %d, %s ms;"
            + " fence sessions at most %d (%d samples)%n",
        CALLS,
        NAMES,
        POOL_SIZE,
        ran,
        busy,
        100.0 * busy / CALLS,
        unavailable,
        m.group(6),
        sampler.max(),
        sampler.samples());

    // Every call is accounted for: it ran, or it answered with the contract's exception.
    List<String> failed = output.stream().filter(l -> l.startsWith("failed")).toList();
    assertThat(Integer.parseInt(m.group(4))).as("calls that ended otherwise: %s", failed).isZero();
    assertThat(ran + busy + unavailable).isEqualTo(CALLS);
    assertThat(failed)
        .as("unavailable calls are the pool's bounded wait, never the server refusing sessions")
        .allSatisfy(f -> assertThat(f).contains("WriterFenceUnavailableException"))
        .noneMatch(f -> f.contains("53300") || f.contains("too many clients"));
    // The application's core saw the agent's lease in every call that ran (ADR 29).
    assertThat(Integer.parseInt(m.group(5))).as("calls without WriterFence.current").isZero();

    // No two sections of one name overlap, and their fencing tokens rise.
    Map<String, List<Section>> byName = new TreeMap<>();
    for (String line : output) {
      Matcher s = SECTION.matcher(line);
      if (s.matches()) {
        byName
            .computeIfAbsent(s.group(1), k -> new ArrayList<>())
            .add(
                Section.onNanoTime(
                    "vt:" + s.group(1),
                    Long.parseLong(s.group(2)),
                    Long.parseLong(s.group(3)),
                    Long.parseLong(s.group(4))));
      }
    }
    assertThat(byName.values().stream().mapToInt(List::size).sum()).isEqualTo(ran);
    assertThat(byName).as("every name was written").hasSize(NAMES);
    byName.forEach(
        (name, sections) -> {
          SectionReport report = SectionChecker.check(sections);
          assertThat(report.violations()).as("fence %s:%s", prefix, name).isEmpty();
        });

    // The database sessions of the fence's role stayed within its pool.
    assertThat(sampler.samples()).as("pg_stat_activity samples taken during the run").isPositive();
    assertThat(sampler.max())
        .as("sessions of the fence's role at once, pool size %d", POOL_SIZE)
        .isBetween(1, POOL_SIZE + SLACK);
    assertThat(sampler.applicationNames())
        .as("the agent's pool did not read the application's HikariCP configuration file")
        .doesNotContain("legacy-app");
  }

  /**
   * The application's class path: this module's test classes (the application), the application's
   * own copy of core and its dependencies, and an older HikariCP; never the agent's classes.
   */
  private static String appClassPath() throws IOException {
    return LegacyJvm.appClassPath("boot", "app-pool");
  }
}
