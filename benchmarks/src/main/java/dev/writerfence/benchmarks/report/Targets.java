package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The rows of the report's targets table (what, goal, measured, verdict), as the sections judge the
 * issue's targets, and the one wording of a verdict.
 */
final class Targets {
  private Targets() {}

  /**
   * Adds the ratio of two rows' scores, judged against a bound; not measured when either is absent.
   *
   * @param targets where the row goes
   * @param what the target's name
   * @param goal the goal as shown
   * @param ours the numerator's row, or empty when it did not run
   * @param theirs the denominator's row, or empty when it did not run
   * @param bound the ratio to reach
   * @param higher whether the ratio must be at least {@code bound} (else at most)
   */
  static void ratio(
      List<String[]> targets,
      String what,
      String goal,
      Optional<Row> ours,
      Optional<Row> theirs,
      double bound,
      boolean higher) {
    if (ours.isEmpty() || theirs.isEmpty()) {
      add(targets, what, goal, "not measured", null, "");
      return;
    }
    double r = ours.get().score() / theirs.get().score();
    boolean pass = higher ? r >= bound : r <= bound;
    add(
        targets,
        what,
        goal,
        fmt(r) + "×",
        pass,
        pass
            ? ""
            : higher
                ? String.format(Locale.ROOT, "%.0f%% short", (1 - r / bound) * 100)
                : String.format(Locale.ROOT, "%.0f%% over", (r / bound - 1) * 100));
  }

  /**
   * @param targets where the row goes
   * @param what the target's name
   * @param goal the goal as shown
   * @param measured what was measured, as shown
   * @param pass whether the goal was met; {@code null} when not measured
   * @param note what to add to the verdict in parentheses, or empty
   */
  static void add(
      List<String[]> targets,
      String what,
      String goal,
      String measured,
      Boolean pass,
      String note) {
    targets.add(new String[] {what, goal, measured, verdict(pass, note)});
  }

  /**
   * @param pass whether the goal was met; {@code null} when not measured
   * @param note what to add in parentheses, or empty
   * @return the verdict column's text
   */
  static String verdict(Boolean pass, String note) {
    String verdict = pass == null ? "not measured in this run" : pass ? "pass" : "**miss**";
    return note.isEmpty() ? verdict : verdict + " (" + note + ")";
  }
}
