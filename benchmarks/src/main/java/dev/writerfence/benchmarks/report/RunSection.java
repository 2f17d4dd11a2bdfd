package dev.writerfence.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The report's first section: the plan, the machine, the JVM, the servers and their settings, the
 * versions measured and how the backends connect.
 */
final class RunSection {
  private RunSection() {}

  /**
   * @param out the run's directory (for the speed-first server's settings, when it ran)
   * @param env the run's {@code environment.json}
   * @return the section's Markdown
   */
  static String render(Path out, JsonNode env) {
    JsonNode pg = env.path("postgresDurable");
    JsonNode plan = env.path("plan");
    StringBuilder s = new StringBuilder();
    s.append("### Run\n\n");
    s.append(
        String.format(
            Locale.ROOT,
            "Plan `%s` (JMH: %d fork(s), %d × %d s warm-up, %d × %d s measurement), started %s.%n%n",
            plan.path("name").asText(),
            plan.path("forks").asInt(),
            plan.path("warmups").asInt(),
            plan.path("warmupSeconds").asInt(),
            plan.path("iterations").asInt(),
            plan.path("iterationSeconds").asInt(),
            env.path("started").asText()));
    s.append("| | |\n| --- | --- |\n");
    row(
        s,
        "machine",
        env.path("cpus").asText()
            + " CPUs, "
            + env.path("cpuModel").asText()
            + ", "
            + env.path("memory").asText()
            + " RAM, "
            + env.path("os").asText());
    row(
        s,
        "load average at start",
        env.path("loadAverageAtStart").asText()
            + " (the machine is shared with other builds: absolute numbers are noisy, ratios within"
            + " one run are what counts)");
    row(s, "JVM", env.path("java").asText());
    row(
        s,
        "PostgreSQL (durable, all rows unless labelled)",
        "embedded "
            + pg.path("server_version").asText()
            + " on 127.0.0.1: fsync="
            + pg.path("fsync").asText()
            + ", synchronous_commit="
            + pg.path("synchronous_commit").asText()
            + ", full_page_writes="
            + pg.path("full_page_writes").asText()
            + ", wal_sync_method="
            + pg.path("wal_sync_method").asText()
            + ", shared_buffers="
            + pg.path("shared_buffers").asText());
    Path speedFirst = out.resolve("environment-speedfirst.json");
    if (Files.exists(speedFirst)) {
      try {
        JsonNode f = RunFiles.read(speedFirst);
        row(
            s,
            "PostgreSQL (speed-first, labelled)",
            "zonky defaults: fsync="
                + f.path("fsync").asText()
                + ", synchronous_commit="
                + f.path("synchronous_commit").asText());
      } catch (IOException e) {
        row(s, "PostgreSQL (speed-first)", "unreadable: " + e.getMessage());
      }
    }
    row(s, "Redis", env.path("redis").asText());
    StringBuilder versions = new StringBuilder();
    env.path("versions")
        .properties()
        .forEach(
            e ->
                versions
                    .append(versions.length() == 0 ? "" : ", ")
                    .append(e.getKey())
                    .append(' ')
                    .append(e.getValue().asText()));
    row(s, "versions", versions.toString());
    row(
        s,
        "connections",
        "each PostgreSQL backend: a HikariCP pool of its own, autocommit, 127.0.0.1 TCP; shared"
            + " by the threads with threads + 1 connections (in the cycle benchmark"
            + " JdbcLockRegistry gets one registry with 2 connections per thread), or, for"
            + " contenders standing for processes, one backend per contender with 2 connections"
            + " (advisory: 3, one more than its store may pin)");
    return s.toString();
  }

  private static void row(StringBuilder s, String key, String value) {
    s.append("| ").append(key).append(" | ").append(value).append(" |\n");
  }
}
