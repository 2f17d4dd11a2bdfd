package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import com.fasterxml.jackson.databind.JsonNode;
import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The agent part of the report: its start-up cost from the agent module's own harness, the audit
 * advice ({@link AuditSection}) and the cost of propagating a held fence to another thread.
 */
final class AgentSection {
  private AgentSection() {}

  /**
   * @param out the run's directory
   * @param imagePrefix what goes before a chart's file name in a link
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when a file cannot be read or a chart written
   */
  static void write(Path out, String imagePrefix, StringBuilder md, List<String[]> targets)
      throws IOException {
    md.append("\n### Agent start-up and audit advice\n\n");
    startup(out, md, targets);
    AuditSection.write(out, imagePrefix, md, targets);
    propagation(out, md);
  }

  /** The start-up target, as the target rows name it (a JDK's name follows). */
  static final String STARTUP_TARGET =
      "start-up added ≤ 300 ms, propagation on, audit on and one fenced class";

  /** The start-up goal: wall time added, milliseconds. */
  private static final long STARTUP_BOUND_MILLIS = 300;

  /**
   * The start-up paragraph and one target row for each JDK: this run's JVM ({@code
   * agent-startup.json}) and Temurin 25 ({@code agent-startup-25.json}); judged on the median wall
   * time added, with the CPU time added beside it.
   */
  static void startup(Path out, StringBuilder md, List<String[]> targets) throws IOException {
    JsonNode main = RunFiles.readOrNull(out, "agent-startup.json");
    if (main == null) {
      md.append(
          "Start-up: gap; the agent module's harness (agent/target/test-classes) was not"
              + " built when this run was made.\n");
      Targets.add(
          targets,
          STARTUP_TARGET,
          "≤ " + STARTUP_BOUND_MILLIS + " ms wall",
          "gap: harness not built",
          null,
          "");
      return;
    }
    String java = main.path("java").asText("");
    startup(main, java.isEmpty() ? "this run's JVM" : "Java " + java, md, targets);
    JsonNode jdk25 = RunFiles.readOrNull(out, "agent-startup-25.json");
    if (jdk25 != null) {
      startup(jdk25, "Temurin 25", md, targets);
    } else if (!java.equals("25")) {
      Targets.add(
          targets,
          STARTUP_TARGET + " (Temurin 25)",
          "≤ " + STARTUP_BOUND_MILLIS + " ms wall",
          "gap: no Temurin 25 in this run",
          null,
          "");
    }
  }

  private static void startup(JsonNode r, String jdk, StringBuilder md, List<String[]> targets) {
    long wall = r.path("costMillis").asLong();
    long cpuWithout = r.path("cpuWithoutAgentMillis").asLong(-1);
    long cpuWith = r.path("cpuWithAgentMillis").asLong(-1);
    String cpu =
        cpuWithout < 0 || cpuWith < 0
            ? "CPU not measured"
            : "+" + (cpuWith - cpuWithout) + " ms CPU";
    int runs = r.path("runs").asInt();
    md.append(
        String.format(
            Locale.ROOT,
            "Start-up on %s, from the agent module's own harness (`StartupCost`: a small"
                + " application started with and without the agent, alternating, median of %d"
                + " each; `audit.mode=log`, propagation on, its fenced class loads): wall %d ms"
                + " without, %d ms with, **%d ms** added; CPU %d ms without, %d ms with."
                + " Its output: `%s`%n%n",
            jdk,
            runs,
            r.path("withoutAgentMillis").asLong(),
            r.path("withAgentMillis").asLong(),
            wall,
            cpuWithout,
            cpuWith,
            r.path("output").asText().replace('\n', ' ').replace('`', '\'')));
    boolean pass = wall <= STARTUP_BOUND_MILLIS;
    Targets.add(
        targets,
        STARTUP_TARGET + " (" + jdk + ")",
        "≤ " + STARTUP_BOUND_MILLIS + " ms wall",
        String.format(Locale.ROOT, "+%d ms wall, %s (median of %d paired runs)", wall, cpu, runs),
        pass,
        pass
            ? ""
            : String.format(
                Locale.ROOT,
                "%d ms over: Byte Buddy's build when the fenced class loads, about 1 s of CPU;"
                    + " agent/README.md",
                wall - STARTUP_BOUND_MILLIS));
  }

  /**
   * The propagation rows: one hand-off (submit, run, get) without the agent, with the agent and
   * propagation off, with it on; with and without a fence held by the submitting thread.
   */
  private static void propagation(Path out, StringBuilder md) throws IOException {
    List<Row> without = JmhResults.read(out.resolve("propagation-noagent.json"));
    List<Row> off = JmhResults.read(out.resolve("propagation-off.json"));
    List<Row> on = JmhResults.read(out.resolve("propagation-on.json"));
    md.append(
        "\nPropagation (`PropagationBenchmark`): one task submitted to a single-thread pool and"
            + " awaited, in a fork without the agent, one with the agent (`audit.mode=log`) and"
            + " `agent.propagation=false`, and one with propagation on; the submitting thread"
            + " holds nothing, or holds a fence (a no-op lease store grants it). Medians, with"
            + " the fastest sample:\n\n");
    if (without.isEmpty() || off.isEmpty() || on.isEmpty()) {
      md.append("not run (it needs forks and the agent jar).\n");
      return;
    }
    md.append(
        "| hand-off | without the agent (ns) | agent, propagation off (ns) | agent, propagation on"
            + " (ns) | added by propagation, medians (ns) |\n"
            + "| --- | --- | --- | --- | --- |\n");
    for (String call : new String[] {"handOff", "handOffHeld"}) {
      Optional<Row> a = JmhResults.find(without, call);
      Optional<Row> b = JmhResults.find(off, call);
      Optional<Row> c = JmhResults.find(on, call);
      if (a.isEmpty() || b.isEmpty() || c.isEmpty()) {
        continue;
      }
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s (%s) | %s (%s) | %s (%s) | %s |%n",
              call.equals("handOff")
                  ? "submit + run + get, nothing held"
                  : "the same, a fence held",
              fmt(a.get().percentile("50.0")),
              fmt(a.get().percentile("0.0")),
              fmt(b.get().percentile("50.0")),
              fmt(b.get().percentile("0.0")),
              fmt(c.get().percentile("50.0")),
              fmt(c.get().percentile("0.0")),
              fmt(c.get().percentile("50.0") - b.get().percentile("50.0"))));
    }
  }
}
