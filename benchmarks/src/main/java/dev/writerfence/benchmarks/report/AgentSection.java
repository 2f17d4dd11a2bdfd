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
    JsonNode startup = RunFiles.readOrNull(out, "agent-startup.json");
    if (startup != null) {
      long cost = startup.path("costMillis").asLong();
      md.append(
          String.format(
              Locale.ROOT,
              "Start-up, from the agent module's own harness (`StartupCost`: a small application"
                  + " started with and without the agent, alternating, median of %d each): wall"
                  + " %d ms without, %d ms with, **%d ms** added; CPU %d ms without, %d ms with."
                  + " Its output: `%s`%n",
              startup.path("runs").asInt(),
              startup.path("withoutAgentMillis").asLong(),
              startup.path("withAgentMillis").asLong(),
              cost,
              startup.path("cpuWithoutAgentMillis").asLong(),
              startup.path("cpuWithAgentMillis").asLong(),
              startup.path("output").asText().replace('\n', ' ').replace('`', '\'')));
      Targets.add(
          targets,
          "agent start-up overhead",
          "< 300 ms",
          cost + " ms",
          cost < 300,
          cost < 300 ? "" : String.format(Locale.ROOT, "%d ms over", cost - 300));
    } else {
      md.append(
          "Start-up: gap; the agent module's harness (agent/target/test-classes) was not"
              + " built when this run was made.\n");
      Targets.add(
          targets, "agent start-up overhead", "< 300 ms", "gap: harness not built", null, "");
    }
    AuditSection.write(out, imagePrefix, md, targets);
    propagation(out, md);
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
