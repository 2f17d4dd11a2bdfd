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
 * The scale part of the report: lease cycle latency with more and more free names in the table, a
 * chart, and the table's growth over many cycles on one name, each with its target.
 */
final class ScaleSection {
  private ScaleSection() {}

  /**
   * @param out the run's directory
   * @param imagePrefix what goes before a chart's file name in a link
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when a file cannot be read or a chart written
   */
  static void write(Path out, String imagePrefix, StringBuilder md, List<String[]> targets)
      throws IOException {
    List<Row> rows = JmhResults.read(out.resolve("scale.json"));
    md.append(
        "\n### Scale of names: lease cycle latency with N free names in the table (random name each cycle)\n\n");
    md.append(
        "| names in the table | µs per cycle | ± (99.9%) | ÷ 1 name |\n| --- | --- | --- | --- |\n");
    Optional<Row> one = JmhResults.find(rows, "1");
    DefaultCategoryDataset chart = new DefaultCategoryDataset();
    for (Row r : rows) {
      md.append("| ")
          .append(r.param())
          .append(" | ")
          .append(fmt(r.score()))
          .append(" | ")
          .append(fmt(r.error()))
          .append(" | ")
          .append(one.map(o -> fmt(r.score() / o.score()) + "×").orElse(""))
          .append(" |\n");
      chart.addValue(r.score(), "lease, durable server", r.param());
    }
    if (chart.getColumnCount() > 0) {
      Charts.bars(
          out.resolve("scale.png"),
          "Lease cycle latency by names in the table",
          "fence names in the table",
          "µs per cycle",
          chart,
          false);
      md.append("\n![scale](").append(imagePrefix).append("scale.png)\n");
    }
    Optional<Row> million = JmhResults.find(rows, "1000000");
    Targets.ratio(
        targets, "cycle latency at 10^6 names ÷ at 1 name", "≤ 1.2×", million, one, 1.2, false);
    JsonNode growth = RunFiles.readOrNull(out, "growth.json");
    if (growth != null) {
      long cycles = growth.path("cycles").asLong();
      long before = growth.path("bytesAfterWarmUp").asLong();
      long after = growth.path("bytesAfter").asLong();
      long rowsForName = growth.path("rowsForName").asLong();
      md.append(
          String.format(
              Locale.ROOT,
              "%nTable growth, one name, %,d cycles (%s server, %.0f cycles/s): lease table %,d bytes"
                  + " after the first 1,000 cycles, %,d bytes after all; %d row for the name; its"
                  + " fencing token is %,d.%n",
              cycles,
              growth.path("server").asText(),
              cycles / growth.path("seconds").asDouble(),
              before,
              after,
              rowsForName,
              growth.path("fencingToken").asLong()));
      double perCycle = (double) (after - before) / cycles;
      Targets.add(
          targets,
          "table growth over " + String.format(Locale.ROOT, "%,d", cycles) + " cycles on one name",
          "no growth per acquisition",
          String.format(Locale.ROOT, "%+,d bytes, %d row", after - before, rowsForName),
          rowsForName == 1 && perCycle < 1.0,
          cycles < 1_000_000 ? "fewer than 10^6 cycles in this plan" : "");
    }
  }
}
