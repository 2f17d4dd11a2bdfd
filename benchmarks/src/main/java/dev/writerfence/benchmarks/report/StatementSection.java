package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The SQL contract's statements beside a plain durable single-row {@code UPDATE} on the same server
 * ({@code StatementBenchmark}, raw JDBC, the statements taking turns in every round): each one's
 * mean time and its ratio to the {@code UPDATE}'s, and the SQL-level targets, with the
 * lease cycle's against the raw two-UPDATE floor from the cycle benchmark of the same run.
 */
final class StatementSection {
  /** The JMH result file of {@code StatementBenchmark}. */
  static final String FILE = "statements.json";

  /** The statements as reported: label, then the counters' prefix in the JMH result. */
  private static final String[][] STATEMENTS = {
    {"plain durable single-row `UPDATE`", "update"},
    {"`writer_fence.acquire_lease` (TTL in seconds)", "acquire"},
    {"`writer_fence.acquire_lease_ms` (TTL in milliseconds)", "acquireMs"},
    {"`writer_fence.release` (no flush of its own)", "release"},
  };

  private StatementSection() {}

  /**
   * @param out the run's directory
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when a result file cannot be read
   */
  static void write(Path out, StringBuilder md, List<String[]> targets) throws IOException {
    Optional<Row> round = JmhResults.read(out.resolve(FILE)).stream().findFirst();
    double update = round.map(r -> meanMicros(r, "update")).orElse(Double.NaN);
    if (round.isPresent()) {
      md.append("\n### The contract's statements beside a plain durable UPDATE (raw JDBC)\n\n");
      md.append(
          "One connection, autocommit, server-side prepared statements; every round runs each"
              + " statement in turn, so the ratios compare statements under the same load.\n\n");
      md.append("| statement | mean µs | ÷ plain UPDATE |\n| --- | --- | --- |\n");
      for (String[] s : STATEMENTS) {
        double mean = meanMicros(round.get(), s[1]);
        md.append("| ")
            .append(s[0])
            .append(" | ")
            .append(fmt(mean))
            .append(" | ")
            .append(fmt(mean / update))
            .append("× |\n");
      }
      double cycle = meanMicros(round.get(), "acquire") + meanMicros(round.get(), "release");
      md.append("\nA lease cycle in SQL (`acquire_lease` + `release`) took ")
          .append(fmt(cycle / (2 * update)))
          .append(
              "× two plain UPDATEs in the same rounds (the cycle benchmark's raw floor, here with"
                  + " no pool and no library code; the target below judges the library's cycle).\n");
    }
    ratio(targets, "`acquire_lease` ÷ plain durable UPDATE", 1.5, round, "acquire", update);
    ratio(targets, "`acquire_lease_ms` ÷ plain durable UPDATE", 1.5, round, "acquireMs", update);
    ratio(targets, "`release` ÷ plain durable UPDATE", 1.0, round, "release", update);
    List<Row> cycles = JmhResults.read(out.resolve("cycle-t1.json"));
    Targets.ratio(
        targets,
        "raw two-UPDATE floor ÷ lease cycle throughput (JMH)",
        "≤ 1.2×",
        JmhResults.find(cycles, "rawFloor"),
        JmhResults.find(cycles, "lease"),
        1.2,
        false);
  }

  private static void ratio(
      List<String[]> targets,
      String what,
      double bound,
      Optional<Row> round,
      String statement,
      double update) {
    String goal = String.format(Locale.ROOT, "≤ %.1f×", bound);
    if (round.isEmpty()) {
      Targets.add(targets, what, goal, "not measured", null, "");
      return;
    }
    double r = meanMicros(round.get(), statement) / update;
    boolean pass = r <= bound;
    Targets.add(
        targets,
        what,
        goal,
        fmt(r) + "×",
        pass,
        pass ? "" : String.format(Locale.ROOT, "%.0f%% over", (r / bound - 1) * 100));
  }

  /** A statement's mean time: its summed nanoseconds over its summed calls, in microseconds. */
  static double meanMicros(Row round, String statement) {
    return round.secondary(statement + "Nanos") / round.secondary(statement + "Calls") / 1000;
  }
}
