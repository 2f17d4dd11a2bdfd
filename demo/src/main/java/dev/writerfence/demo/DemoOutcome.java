package dev.writerfence.demo;

import dev.writerfence.testing.FairnessReport;
import java.util.ArrayList;
import java.util.List;

/**
 * How a demo run ended: what each writer did, what the checks found, and what else went wrong.
 *
 * @param results one per writer process, in launch order
 * @param check what {@link RecordChecker} found in the record and the bucket
 * @param fairness how evenly the writer processes won, reckoned from the same record
 * @param legacy what the legacy writer did, as the agent's audit saw it
 * @param writerMap the writer acquisition map of the demo's bucket, as the agent saw its writers
 * @param failures what went wrong apart from the checks: writers that failed, failed writes,
 *     nothing acquired at all, a writer map that is not every writer fenced under the run's fence
 * @param totalSeconds the whole run, from the start to the end of the checks
 */
record DemoOutcome(
    List<WriterResult> results,
    CheckReport check,
    FairnessReport fairness,
    LegacyResult legacy,
    DemoWriterMap writerMap,
    List<String> failures,
    double totalSeconds) {

  /**
   * @param results one per writer process, in launch order
   * @param check what the checks found
   * @param legacy what the legacy writer did
   * @param writerMap the writer map of the demo's bucket
   * @param folder the run folder, to point at a failed writer's log
   * @param totalSeconds the whole run
   * @return the outcome, with the failures found in the results
   */
  static DemoOutcome of(
      List<WriterResult> results,
      CheckReport check,
      LegacyResult legacy,
      DemoWriterMap writerMap,
      RunFolder folder,
      double totalSeconds) {
    List<String> failures = failures(results, folder);
    if (legacy.failure() != null) {
      failures.add(legacy.failure());
    } else if (legacy.unfenced().isEmpty()) {
      // The legacy writer wrote without a fence: an audit that lists nothing has shown nothing.
      failures.add("the audit listed no unfenced write of the legacy writer");
    }
    failures.addAll(writerMap.failures());
    return new DemoOutcome(
        results, check, RecordChecker.fairness(results), legacy, writerMap, failures, totalSeconds);
  }

  /**
   * The fairness a run with the defaults should show (issue 11): Jain's index over the writer
   * processes' acquisitions at least this.
   */
  static final double JAIN_TARGET = 0.95;

  /**
   * @param fairness a run's fairness
   * @return whether it meets the target: every writer process acquired, Jain's index at least
   *     {@link #JAIN_TARGET}, no fenced call gave up busy
   */
  static boolean meetsFairnessTarget(FairnessReport fairness) {
    return fairness.everyWriterWon()
        && fairness.jainIndex() >= JAIN_TARGET
        && fairness.busyGiveUps() == 0;
  }

  /**
   * @return whether the run shows the fence working: no violation and no other failure
   */
  boolean ok() {
    return check.violations() == 0 && failures.isEmpty();
  }

  /**
   * @return how the writer processes learnt of a release, and the hand-over gap
   */
  HandOverSummary handOver() {
    return HandOverSummary.of(results, fairness);
  }

  /**
   * @return the sums over every writer
   */
  WriterTotals totals() {
    return WriterTotals.of(results);
  }

  private static List<String> failures(List<WriterResult> results, RunFolder folder) {
    List<String> failures = new ArrayList<>();
    for (WriterResult r : results) {
      String log = "; its log: " + folder.writerLog(r.writer());
      String failure = r.failure();
      if (failure != null) {
        failures.add("writer " + r.writer() + " (pid " + r.pid() + ") " + failure + log);
      }
      if (r.errors() > 0 || r.unavailable() > 0) {
        failures.add(
            "writer "
                + r.writer()
                + " had "
                + r.errors()
                + " failed writes and "
                + r.unavailable()
                + " unavailable outcomes"
                + log);
      }
    }
    // Writers that all ran cleanly without one acquisition would pass every check vacuously.
    if (results.stream().mapToLong(WriterResult::acquisitions).sum() == 0) {
      failures.add("no writer acquired the fence: nothing was shown");
    }
    return failures;
  }
}
