package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The weaving part of the report: the cost of one fenced call without a database along each path
 * (direct, AspectJ, Spring AOP, the agent), a chart, and the overhead target of each woven path.
 */
final class WeavingSection {
  private WeavingSection() {}

  /**
   * @param out the run's directory
   * @param imagePrefix what goes before a chart's file name in a link
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when a file cannot be read or a chart written
   */
  static void write(Path out, String imagePrefix, StringBuilder md, List<String[]> targets)
      throws IOException {
    List<Row> rows = new ArrayList<>(JmhResults.read(out.resolve("weaving.json")));
    rows.addAll(JmhResults.read(out.resolve("weaving-agent.json")));
    md.append("\n### Weaving overhead, no database (a no-op lease store grants every lease)\n\n");
    md.append(
        "| path | ns per call, fastest sample | median | mean | overhead vs direct"
            + " `WriterFence.call`, fastest samples (ns) |\n| --- | --- | --- | --- | --- |\n");
    double direct =
        JmhResults.find(rows, "direct").map(d -> d.percentile("0.0")).orElse(Double.NaN);
    DefaultCategoryDataset chart = new DefaultCategoryDataset();
    for (String path : new String[] {"plain", "direct", "aspectj", "springAop", "agent"}) {
      Optional<Row> r = JmhResults.find(rows, path);
      if (r.isEmpty()) {
        if (path.equals("agent")) {
          md.append(
              "| through the agent | not run: needs a fork and"
                  + " agent/target/writer-fence-agent.jar (`mvn package -pl agent`) | | | |\n");
          Targets.add(
              targets,
              "weaving overhead, agent",
              "< 1,000 ns per call",
              "not run (no agent jar or no fork)",
              null,
              "");
        }
        continue;
      }
      double fastest = r.get().percentile("0.0");
      boolean woven = !path.equals("plain") && !path.equals("direct");
      double overhead = fastest - direct;
      md.append("| ")
          .append(label(path))
          .append(" | ")
          .append(fmt(fastest))
          .append(" | ")
          .append(fmt(r.get().percentile("50.0")))
          .append(" | ")
          .append(fmt(r.get().score()))
          .append(" | ")
          .append(woven ? fmt(overhead) : "")
          .append(" |\n");
      chart.addValue(fastest, "fastest sample", label(path));
      chart.addValue(r.get().percentile("50.0"), "median", label(path));
      if (woven) {
        Targets.add(
            targets,
            "weaving overhead, " + label(path),
            "< 1,000 ns per call",
            fmt(overhead) + " ns",
            Double.isNaN(overhead) ? null : overhead < 1000,
            path.equals("agent")
                ? "in a fork with the agent; its no-op store is a JDK proxy, two reflective calls"
                    + " more"
                : "");
      }
    }
    md.append(
        "\nJudged on the fastest sample of each path (hot code, not preempted): on a machine"
            + " this oversubscribed even the median takes in time slices spent waiting for a core,"
            + " and differs by more than the overheads themselves between runs. The plain call is at"
            + " the timer's resolution.\n");
    if (chart.getColumnCount() > 0) {
      Charts.bars(
          out.resolve("weaving.png"),
          "Cost of one fenced call without a database",
          "path",
          "ns per call",
          chart,
          true);
      md.append("\n![weaving](").append(imagePrefix).append("weaving.png)\n");
    }
  }

  private static String label(String path) {
    return switch (path) {
      case "plain" -> "plain call, no fence";
      case "direct" -> "direct `WriterFence.call`";
      case "aspectj" -> "`@WriterFenced`, AspectJ compile-time weaving";
      case "springAop" -> "`@WriterFenced`, Spring AOP (starter's advisor, CGLIB proxy)";
      case "agent" -> "`@WriterFenced`, the writer-fence agent's inlined advice";
      default -> path;
    };
  }
}
