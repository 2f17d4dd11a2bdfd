package dev.writerfence.demo;

import dev.writerfence.cli.TextTable;
import dev.writerfence.cli.audit.UnfencedWriteTable;
import dev.writerfence.testing.FairnessReport;
import dev.writerfence.testing.Percentiles;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The summary a run prints at its end without {@code --json}: a table of the writers and their
 * totals, a legend that says what busy, Jain's index and the times mean, the count of each kind of
 * violation, the fairness of the run and the hand-over mode beside them, the legacy writer's
 * unfenced writes, the first violations and failures, one line that starts {@code OK:} or {@code
 * FAILED:}, and last the writer acquisition map of the bucket ({@link DemoWriterMap}), naming the
 * file that holds its picture.
 */
final class TextSummary {
  /**
   * Under the table: busy is the fence at work, not a failure; violations are failures; what the
   * fairness block's numbers are.
   */
  static final List<String> LEGEND =
      List.of(
          "busy = fenced calls that gave up after their retries because another writer held the"
              + " fence;",
          "       the method did not run and nothing was written.",
          "overlaps and the other violation counts below must be 0.",
          "Jain's index = (sum of wins)^2 / (writers x sum of wins^2) over the acquisitions of each"
              + " writer process:",
          "       1.0 when all won alike, 1/writers when one won everything.",
          "time to win = a fenced call's first acquire attempt to its lease; hand-over gap = one"
              + " writer's section end",
          "       to the next writer's section start; hand-over: notified = woken by the release's"
              + " NOTIFY,",
          "       polled = noticed the release at a poll (each writer process proves its own"
              + " mode).");

  private TextSummary() {}

  /**
   * @param out where to print it
   * @param outcome how the run ended
   * @param picture the file holding the picture of the writer map, named above the map
   */
  static void print(PrintWriter out, DemoOutcome outcome, Path picture) {
    CheckReport check = outcome.check();
    WriterTotals totals = outcome.totals();
    out.println();
    writerTable(outcome, totals).print(out);
    LEGEND.forEach(out::println);
    out.println();
    out.printf(
        "overlaps: %d   token order violations: %d   lease violations: %d   stamp violations: %d%n",
        check.overlaps(),
        check.tokenOrderViolations(),
        check.leaseViolations(),
        check.stampViolations());
    out.printf(
        "handovers between writer processes: %d   highest fencing token: %d   objects checked: %d%n",
        check.handovers(), totals.maxToken(), check.objects());
    fairness(out, outcome.fairness());
    out.println(outcome.handOver().line());
    out.println();
    out.printf(
        "unfenced writes (the legacy writer, pid %d, run with the agent in audit log mode): %d%n",
        outcome.legacy().pid(), outcome.legacy().unfencedWrites());
    UnfencedWriteTable.print(out, outcome.legacy().unfenced());
    out.println();
    check.examples().forEach(e -> out.println("  " + e));
    outcome.failures().forEach(f -> out.println("  " + f));
    if (outcome.ok()) {
      out.printf(
          Locale.ROOT,
          "OK: %d critical sections, none overlapping; fencing tokens rose in time order; every"
              + " object carries the token of the lease that wrote it last (%.1f s)%n",
          check.sections(),
          outcome.totalSeconds());
    } else {
      out.printf(
          Locale.ROOT,
          "FAILED: %d violations, %d other failures (%.1f s)%n",
          check.violations(),
          outcome.failures().size(),
          outcome.totalSeconds());
    }
    writerMap(out, outcome.writerMap(), picture);
  }

  /**
   * @param picture the file holding the picture of the writer map
   * @return the line that names it
   */
  static String pictureLine(Path picture) {
    return "writer map picture (open it in a browser): " + picture;
  }

  /** Last: every writer of the bucket, as {@code writer-fence audit --map} prints it. */
  private static void writerMap(PrintWriter out, DemoWriterMap writerMap, Path picture) {
    out.println();
    out.printf(
        "writer acquisition map of bucket %s (every writer process ran with the agent in audit"
            + " log mode, audit.map on):%n",
        writerMap.bucket());
    out.println(pictureLine(picture));
    writerMap.map().print(out);
  }

  /** The fairness block: beside the violation counts, measured on the same record. */
  private static void fairness(PrintWriter out, FairnessReport f) {
    int writers = f.winsPerWriter().size();
    out.printf(
        Locale.ROOT,
        "fairness: %d of %d writer processes acquired   Jain's index: %.3f (target >= %.2f: %s)"
            + "   busy give-ups: %d%n",
        writers - f.writersWithoutWin().size(),
        writers,
        f.jainIndex(),
        DemoOutcome.JAIN_TARGET,
        DemoOutcome.meetsFairnessTarget(f) ? "met" : "missed",
        f.busyGiveUps());
    out.printf(
        Locale.ROOT,
        "time to win: p50 %s ms   p99 %s ms   hand-over gap: p50 %s ms   p99 %s ms%n",
        ms(Percentiles.millis(f.timeToWin().p50())),
        ms(Percentiles.millis(f.timeToWin().p99())),
        ms(Percentiles.millis(f.handoverGap().p50())),
        ms(Percentiles.millis(f.handoverGap().p99())));
  }

  /** One row per writer and a total row; the errors column counts unavailable outcomes too. */
  private static TextTable writerTable(DemoOutcome outcome, WriterTotals totals) {
    TextTable table =
        new TextTable(
                "writer",
                "pid",
                "threads",
                "acquisitions",
                "busy",
                "retries",
                "mean wait ms",
                "max wait ms",
                "objects",
                "errors")
            .alignRight(1, 2, 3, 4, 5, 6, 7, 8, 9);
    for (WriterResult r : outcome.results()) {
      table.row(
          r.writer(),
          r.pid(),
          r.threads(),
          r.acquisitions(),
          r.busy(),
          r.retries(),
          ms(r.meanWaitMs()),
          ms(r.maxWaitUs() / 1000.0),
          r.objects(),
          r.errors() + r.unavailable());
    }
    table.row(
        "total",
        "",
        totals.threads(),
        totals.acquisitions(),
        totals.busy(),
        totals.retries(),
        ms(totals.meanWaitMs()),
        ms(totals.maxWaitMs()),
        totals.objects(),
        totals.errors() + totals.unavailable());
    return table;
  }

  private static String ms(double millis) {
    return String.format(Locale.ROOT, "%.1f", millis);
  }
}
