package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import com.fasterxml.jackson.databind.JsonNode;
import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The uncontended cycle part of the report: acquire + release per second for each backend (one
 * thread, four threads, the speed-first server), the round trips counted per cycle, a chart, and
 * the cycle targets.
 */
final class CycleSection {
  private static final String[] CYCLE_ORDER = {
    "lease", "advisory", "shedlock", "jdbcLockRegistry", "rawFloor", "redisson"
  };

  private CycleSection() {}

  /**
   * @param out the run's directory
   * @param imagePrefix what goes before a chart's file name in a link
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when a file cannot be read or a chart written
   */
  static void write(Path out, String imagePrefix, StringBuilder md, List<String[]> targets)
      throws IOException {
    List<Row> t1 = JmhResults.read(out.resolve("cycle-t1.json"));
    List<Row> t4 = JmhResults.read(out.resolve("cycle-t4.json"));
    List<Row> fast = JmhResults.read(out.resolve("cycle-speedfirst.json"));
    JsonNode trips = RunFiles.readOrNull(out, "roundtrips.json");
    md.append(
        "\n### Uncontended acquire + release cycle (one name per thread, empty critical section)\n\n");
    md.append(
        "| backend | cycles/s, 1 thread | ± (99.9%) | µs per cycle | round trips per cycle (counted)"
            + (t4.isEmpty() ? "" : " | cycles/s, 4 threads")
            + (fast.isEmpty() ? "" : " | cycles/s, speed-first server (fsync off)")
            + " | lease ÷ this |\n");
    md.append(
        "| --- | --- | --- | --- | ---"
            + (t4.isEmpty() ? "" : " | ---")
            + (fast.isEmpty() ? "" : " | ---")
            + " | --- |\n");
    Optional<Row> lease = JmhResults.find(t1, "lease");
    DefaultCategoryDataset chart = new DefaultCategoryDataset();
    for (String backend : CYCLE_ORDER) {
      Optional<Row> r = JmhResults.find(t1, backend);
      if (r.isEmpty()) {
        if (backend.equals("redisson")) {
          md.append(
              "| redisson | not run: redis-server not installed or not started | | | |"
                  + (t4.isEmpty() ? "" : " |")
                  + (fast.isEmpty() ? "" : " |")
                  + "\n");
        }
        continue;
      }
      double score = r.get().score();
      chart.addValue(score, "durable server, 1 thread", backend);
      md.append("| ")
          .append(backend)
          .append(" | ")
          .append(fmt(score))
          .append(" | ")
          .append(fmt(r.get().error()))
          .append(" | ")
          .append(fmt(1e6 / score))
          .append(" | ")
          .append(
              trips == null ? "" : fmt(trips.path("perCycle").path(backend).asDouble(Double.NaN)));
      if (!t4.isEmpty()) {
        Optional<Row> r4 = JmhResults.find(t4, backend);
        md.append(" | ").append(r4.map(x -> fmt(x.score())).orElse(""));
        r4.ifPresent(x -> chart.addValue(x.score(), "durable server, 4 threads", backend));
      }
      if (!fast.isEmpty()) {
        Optional<Row> rf = JmhResults.find(fast, backend);
        md.append(" | ").append(rf.map(x -> fmt(x.score())).orElse(""));
        rf.ifPresent(
            x -> chart.addValue(x.score(), "speed-first server (fsync off), 1 thread", backend));
      }
      md.append(" | ")
          .append(lease.map(l -> fmt(l.score() / score) + "×").orElse(""))
          .append(" |\n");
    }
    if (trips != null) {
      md.append("\nRound trips counted over ")
          .append(trips.path("cycles").asInt())
          .append(" cycles each (")
          .append(trips.path("method").asText())
          .append("). A busy lease attempt: ")
          .append(fmt(trips.path("perCycle").path("lease (busy attempt)").asDouble(Double.NaN)))
          .append(" round trip(s).\n");
    }
    if (chart.getColumnCount() > 0) {
      Charts.bars(
          out.resolve("cycle.png"),
          "Uncontended acquire + release cycles per second",
          "backend",
          "cycles/s",
          chart,
          false);
      md.append("\n![cycles per second](").append(imagePrefix).append("cycle.png)\n");
    }
    Optional<Row> shed = JmhResults.find(t1, "shedlock");
    Optional<Row> jlr = JmhResults.find(t1, "jdbcLockRegistry");
    Optional<Row> floor = JmhResults.find(t1, "rawFloor");
    Targets.ratio(targets, "lease cycle throughput vs ShedLock", "≥ 1.0×", lease, shed, 1.0, true);
    Targets.ratio(
        targets, "lease cycle throughput vs JdbcLockRegistry", "≥ 2.0×", lease, jlr, 2.0, true);
    double leaseTrips =
        trips == null ? Double.NaN : trips.path("perCycle").path("lease").asDouble(Double.NaN);
    Targets.add(
        targets,
        "lease round trips per cycle",
        "2",
        fmt(leaseTrips),
        Double.isNaN(leaseTrips) ? null : leaseTrips <= 2.0,
        "");
    if (lease.isPresent() && floor.isPresent()) {
      double r = floor.get().score() / lease.get().score();
      Targets.add(
          targets,
          "raw two-UPDATE floor ÷ lease cycle throughput",
          "≤ 1.5×",
          fmt(r) + "×",
          r <= 1.5,
          r <= 1.5 ? "" : String.format(Locale.ROOT, "%.0f%% over", (r / 1.5 - 1) * 100));
    } else {
      Targets.add(
          targets,
          "raw two-UPDATE floor ÷ lease cycle throughput",
          "≤ 1.5×",
          "not measured",
          null,
          "");
    }
  }
}
