package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import com.fasterxml.jackson.databind.JsonNode;
import dev.writerfence.benchmarks.measure.ContentionShape;
import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.IntFunction;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The contention part of the report: one table and two charts per shape measured (contenders ×
 * mode), and the contention targets judged for the lease in each shape, labelled with it.
 * Renders the files of runs made before the shapes existed too, as a shape of their own.
 */
final class ContentionSection {
  static final int[] THREADS = {1, 2, 8, 32, 64};

  /** The files of one shape and how to name it. */
  private record Run(
      String id,
      String shortLabel,
      String label,
      boolean retry,
      IntFunction<String> jmhFile,
      RecordFile recordFile) {}

  private interface RecordFile {
    String of(String backend, int threads);
  }

  private final Path out;
  private final String imagePrefix;
  private final StringBuilder md = new StringBuilder();
  private final List<String[]> targets = new ArrayList<>();

  private ContentionSection(Path out, String imagePrefix) {
    this.out = out;
    this.imagePrefix = imagePrefix;
  }

  /**
   * @param out the run's directory
   * @param imagePrefix what goes before a chart's file name in a link
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when a file cannot be read or a chart written
   */
  static void write(Path out, String imagePrefix, StringBuilder md, List<String[]> targets)
      throws IOException {
    ContentionSection section = new ContentionSection(out, imagePrefix);
    section.build();
    md.append(section.md);
    targets.addAll(section.targets);
  }

  private void build() throws IOException {
    md.append("\n### Contention: every contender takes one shared fence name, again and again\n\n");
    md.append(
        "Contenders are either threads of one process sharing one backend instance"
            + " (`threads`: one pool, one `WriterFence`, one registry; threads of one `WriterFence`"
            + " take turns in the process and only the turn's holder asks the database) or stand-ins"
            + " for separate writer processes with a backend of their own and a pool of 2"
            + " (`processes`: only the database decides). Each either tries once and again without"
            + " pause (`try`: a busy answer is one attempt) or runs what a writer runs, `WriterFence"
            + ".run` with its default busy retry (`retry`: 5 attempts, 200 ms × 2, jitter 0.5; busy"
            + " is the call's `WriterFenceBusyException` after the whole schedule). Time to win: from"
            + " the call to the critical section's start.\n");
    List<Run> runs = new ArrayList<>();
    for (ContentionShape.Contenders c : ContentionShape.Contenders.values()) {
      for (ContentionShape.Mode m : ContentionShape.Mode.values()) {
        ContentionShape shape = new ContentionShape(c, m);
        runs.add(
            new Run(
                shape.id(),
                shape.shortLabel(),
                shape.label(),
                m == ContentionShape.Mode.RETRY,
                shape::jmhFile,
                shape::recordFile));
      }
    }
    runs.add(
        new Run(
            "legacy",
            "before the shapes",
            "files of a run made before in-process turns and the contenders/mode parameters (one"
                + " backend shared by the threads, JdbcLockRegistry one per thread; one try without"
                + " pause): run the plan again to measure the shapes",
            false,
            t -> "contention-t" + t + ".json",
            (b, t) -> "contention-" + b + "-t" + t + ".json"));
    boolean any = false;
    for (Run run : runs) {
      any |= shape(run);
    }
    if (!any) {
      md.append("\nNot measured in this run.\n");
    }
  }

  /** One shape's table, charts and targets; {@code false} when the shape was not measured. */
  private boolean shape(Run run) throws IOException {
    List<String> backends = new ArrayList<>();
    List<List<Row>> byThreads = new ArrayList<>();
    for (int threads : THREADS) {
      List<Row> rows = JmhResults.read(out.resolve(run.jmhFile().apply(threads)));
      byThreads.add(rows);
      rows.stream().map(Row::param).filter(b -> !backends.contains(b)).forEach(backends::add);
    }
    if (backends.isEmpty()) {
      return false;
    }
    md.append("\n#### ").append(run.shortLabel()).append(": ").append(run.label()).append("\n\n");
    md.append(
        "| backend | threads | successful critical sections/s | busy/s | unavailable/s"
            + " | busy p50 (ms) | busy p99 (ms) | time to win p50 (ms) | time to win p99 (ms)"
            + " | distinct winners |\n"
            + "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    DefaultCategoryDataset won = new DefaultCategoryDataset();
    DefaultCategoryDataset latency = new DefaultCategoryDataset();
    for (String backend : backends) {
      double single = Double.NaN;
      double at64 = Double.NaN;
      JsonNode side64 = null;
      for (int i = 0; i < THREADS.length; i++) {
        int threads = THREADS[i];
        Optional<Row> r = JmhResults.find(byThreads.get(i), backend);
        if (r.isEmpty()) {
          continue;
        }
        JsonNode side = RunFiles.readOrNull(out, run.recordFile().of(backend, threads));
        double wonPerSecond = r.get().secondaryPerSecond("won");
        md.append(
            String.format(
                Locale.ROOT,
                "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                backend,
                threads,
                fmt(wonPerSecond),
                fmt(r.get().secondaryPerSecond("busy")),
                fmt(r.get().secondaryPerSecond("unavailable")),
                fmt(millis(side, "busyP50Micros")),
                fmt(millis(side, "busyP99Micros")),
                fmt(millis(side, "wonP50Micros")),
                fmt(millis(side, "wonP99Micros")),
                side == null ? "" : side.path("distinctWinners").asInt() + " of " + threads));
        String x = Integer.toString(threads);
        won.addValue(wonPerSecond, backend, x);
        addLatency(latency, backend + " busy", side, "busy", x);
        addLatency(latency, backend + " time to win", side, "won", x);
        if (threads == 1) {
          single = wonPerSecond;
        }
        if (threads == 64) {
          at64 = wonPerSecond;
          side64 = side;
        }
      }
      if (backend.equals("lease")) {
        judge(run, at64 / single, side64);
      }
    }
    String chart = "contention-" + run.id();
    chart(
        chart + ".png",
        "contention, " + run.shortLabel(),
        "Successful critical sections per second, one shared name (" + run.shortLabel() + ")",
        "critical sections/s",
        won,
        false);
    if (latency.getColumnCount() > 0) {
      chart(
          chart + "-latency.png",
          "latency, " + run.shortLabel(),
          "Busy answer and time to win, p50 and p99 (" + run.shortLabel() + ")",
          "ms (log scale)",
          latency,
          true);
    }
    return true;
  }

  /** A line chart over the contender counts, and its link in the Markdown. */
  private void chart(
      String file,
      String alt,
      String title,
      String valueLabel,
      DefaultCategoryDataset data,
      boolean logarithmic)
      throws IOException {
    Charts.lines(out.resolve(file), title, "contenders", valueLabel, data, logarithmic);
    md.append("\n![").append(alt).append("](").append(imagePrefix).append(file).append(")\n");
  }

  /** The two contention targets for the lease, labelled with the shape. */
  private void judge(Run run, double ratio, JsonNode side64) {
    String who = "lease, " + run.shortLabel() + ": ";
    targets.add(
        new String[] {
          who + "critical sections/s at 64 contenders ÷ 1 writer",
          "≥ 0.80",
          fmt(ratio),
          run.retry()
              ? Targets.verdict(
                  Double.isNaN(ratio) ? null : ratio >= 0.8,
                  Double.isNaN(ratio) || ratio >= 0.8
                      ? ""
                      : String.format(Locale.ROOT, "%.0f%% short", (1 - ratio / 0.8) * 100))
              // 64 threads that never pause take the 2 cores from the one that holds the lease:
              // that measures the spin, so the throughput goal is judged on what writers run.
              : Double.isNaN(ratio)
                  ? Targets.verdict(null, "")
                  : "not judged: contenders that never pause starve the holder of CPU; judged on"
                      + " the retry mode, what a writer runs"
        });
    double p99 = millis(side64, "busyP99Micros");
    if (run.retry()) {
      // Busy here is the high-level call's answer after its whole retry schedule: seconds by
      // design, not the quick "someone else has it" that the goal is about.
      long busy = side64 == null ? 0 : side64.path("busyOutcomes").asLong();
      targets.add(
          new String[] {
            who + "busy outcomes at 64 contenders",
            "< 5 ms p99 (judged on one try)",
            side64 == null
                ? "not measured"
                : busy + " busy" + (busy > 0 ? ", p99 " + fmt(p99) + " ms" : ""),
            side64 == null
                ? Targets.verdict(null, "")
                : "not judged: a busy answer of the retry mode comes after the retry schedule (3 s)"
          });
      return;
    }
    targets.add(
        new String[] {
          who + "busy outcome p99 at 64 contenders",
          "< 5 ms",
          fmt(p99) + " ms",
          Targets.verdict(
              Double.isNaN(p99) ? null : p99 < 5,
              Double.isNaN(p99) || p99 < 5
                  ? ""
                  : String.format(Locale.ROOT, "%.1f× the goal", p99 / 5))
        });
  }

  private static void addLatency(
      DefaultCategoryDataset data, String series, JsonNode side, String outcome, String x) {
    double p50 = millis(side, outcome + "P50Micros");
    double p99 = millis(side, outcome + "P99Micros");
    if (!Double.isNaN(p99)) {
      data.addValue(p50, series + " p50", x);
      data.addValue(p99, series + " p99", x);
    }
  }

  private static double millis(JsonNode side, String field) {
    return side == null ? Double.NaN : side.path(field).asDouble(Double.NaN) / 1000;
  }
}
