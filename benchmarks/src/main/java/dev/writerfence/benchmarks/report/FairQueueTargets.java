package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import com.fasterxml.jackson.databind.JsonNode;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import java.util.List;
import java.util.Locale;

/**
 * The fair queue's targets (issue 11, and issue 27's "Benchmarks" section) judged on one {@link
 * FairQueueRun} result: each a row of what, goal, measured and verdict, the verdict saying what
 * bounds the figure where it is missed. A figure the result does not hold (a run before it was
 * measured) is "not measured".
 */
final class FairQueueTargets {
  /** Issue 27: hand-over gap p50 on a direct connection with notifications. */
  static final double DIRECT_GAP_MS = 2;

  /** Issue 27: behind PgBouncer, the poll interval plus this. */
  static final double BOUNCER_SLACK_MS = 2;

  /** Issue 27: statements per second per idle waiter with notifications. */
  static final double PER_WAITER = 1;

  /** Issue 27: a dead head delays the next grant at most this long. */
  static final double DEAD_HEAD_MS = 1000;

  static final double RATIO = 0.8;

  private FairQueueTargets() {}

  /**
   * @param r the result's JSON
   * @param targets where the rows go
   */
  static void add(JsonNode r, List<String[]> targets) {
    int n = r.path("settings").path("contenders").asInt();
    double poll = r.path("pollIntervalMs").asDouble();
    JsonNode single = r.path("single");
    JsonNode direct = r.path("direct");
    String at = n + " processes";

    int without = 0;
    for (JsonNode w : direct.path("winsPerContender")) {
      if (w.asLong() == 0) {
        without++;
      }
    }
    boolean everyWon = direct.path("everyContenderWon").asBoolean();
    long busy = direct.path("busyGiveUps").asLong();
    String budget = budgetNote(direct);
    targets.add(
        row(
            "fair queue, " + at + ", `WriterFence.run`: every contender wins",
            "all " + n,
            (n - without) + " of " + n + ", busy give-ups " + busy,
            everyWon,
            everyWon ? "" : without + " never won" + budget));
    double jain = direct.path("jainIndex").asDouble();
    targets.add(
        row(
            "fair queue, " + at + ": Jain's index over wins",
            "≥ 0.95",
            String.format(Locale.ROOT, "%.3f", jain),
            jain >= 0.95,
            jain >= 0.95 ? "" : budget.isEmpty() ? "" : budget.substring(2)));
    targets.add(
        row(
            "fair queue, " + at + ": busy give-ups with the default budget",
            "0",
            String.valueOf(busy),
            busy == 0,
            busy == 0 ? "" : budget.isEmpty() ? "" : budget.substring(2)));
    double p99 = direct.path("timeToWinP99Ms").asDouble();
    double bound = direct.path("timeToWinBoundMs").asDouble();
    targets.add(
        row(
            "fair queue, " + at + ": time to win p99",
            "≤ 1.5 × (waiters ahead × (mean section + hand-over))",
            fmt(p99) + " ms (bound " + fmt(bound) + " ms)",
            p99 <= bound,
            p99 <= bound
                ? ""
                : String.format(Locale.ROOT, "%.0f%% over", (p99 / bound - 1) * 100)));
    ratio(targets, single, r.path("fewer"));
    ratio(targets, single, direct);
    handOvers(targets, direct, r.path("bouncer"), poll);
    idle(targets, r.path("idle"));
    deadHeads(targets, r.path("deadHeads"));
    JsonNode rows = r.path("queueRowsAfter");
    targets.add(
        row(
            "fair queue: `queue_status` rows of the run's fence after the run",
            "0",
            rows.isMissingNode() ? "not measured" : rows.asText(),
            rows.isMissingNode() ? null : rows.asLong() == 0,
            rows.isMissingNode() || rows.asLong() == 0
                ? ""
                : "lapsed tickets stay as rows until a later grant of the fence, a minute after"
                    + " they lapsed (contract V5 clears them)"));
    int overlaps = 0;
    int order = 0;
    for (JsonNode p : FairQueueSection.phases(r)) {
      overlaps += p.path("overlaps").asInt();
      order += p.path("tokenOrderViolations").asInt();
    }
    targets.add(
        row(
            "fair queue: exclusion unchanged",
            "0 overlaps, tokens rising",
            overlaps + " overlaps, " + order + " token-order violations",
            overlaps == 0 && order == 0,
            ""));
  }

  /** Why waiters gave up: the queue's depth at the measured turn against the default budget. */
  private static String budgetNote(JsonNode phase) {
    int n = phase.path("contenders").asInt();
    double turn =
        phase.path("meanSectionMs").asDouble() + phase.path("handoverGapP50Ms").asDouble();
    if (phase.path("busyGiveUps").asLong() == 0 || turn <= 0) {
      return "";
    }
    return String.format(
        Locale.ROOT,
        "; a turn of %s ms (section + gap p50) takes %s s through a queue %d deep, against the"
            + " default budget of 3 s",
        fmt(turn),
        fmt(turn * n / 1000),
        n);
  }

  private static void ratio(List<String[]> targets, JsonNode single, JsonNode phase) {
    if (phase.isMissingNode() || phase.isNull()) {
      targets.add(
          row(
              "fair queue: critical sections/s ÷ one writer's, fewer processes",
              "≥ 0.80",
              "not measured",
              null,
              ""));
      return;
    }
    double ratio =
        phase.path("sectionsPerSecond").asDouble() / single.path("sectionsPerSecond").asDouble();
    double section = phase.path("meanSectionMs").asDouble();
    double gap = phase.path("handoverGapP50Ms").asDouble();
    double singleSection = 1000 / single.path("sectionsPerSecond").asDouble();
    // One writer alone runs a section every singleSection ms; contended, every section + gap.
    double ceiling = singleSection / (section + gap);
    targets.add(
        row(
            "fair queue, "
                + phase.path("contenders").asInt()
                + " processes: critical sections/s ÷ one writer's",
            "≥ 0.80",
            fmt(ratio),
            ratio >= RATIO,
            ratio >= RATIO
                ? ""
                : String.format(
                    Locale.ROOT,
                    "%.0f%% short; bounded by the hand-over: one writer alone takes %s ms a"
                        + " cycle, contended a section (%s ms) and a gap (p50 %s ms) each, at"
                        + " most %s",
                    (1 - ratio / RATIO) * 100,
                    fmt(singleSection),
                    fmt(section),
                    fmt(gap),
                    fmt(ceiling))));
  }

  private static void handOvers(
      List<String[]> targets, JsonNode direct, JsonNode bouncer, double poll) {
    double gap = direct.path("handoverGapP50Ms").asDouble();
    int handovers = direct.path("handovers").asInt();
    JsonNode modes = direct.path("wakeUpModes");
    int notified = modes.path("notified").asInt();
    int n = direct.path("contenders").asInt();
    String note =
        handovers == 0
            ? "no hand-over between processes"
            : gap <= DIRECT_GAP_MS
                ? ""
                : modes.isMissingNode()
                    ? "wake-up mode not recorded"
                    : notified < n
                        ? (n - notified) + " of " + n + " processes not notified"
                        : "every process notified: left are the release, one notification to"
                            + " every listening process (one channel for all fences: "
                            + n
                            + " wake-ups a release) and the head's durable poll, on the cores"
                            + " the contenders share";
    targets.add(
        row(
            "fair queue: hand-over gap p50, direct connection, notified",
            "≤ " + fmt(DIRECT_GAP_MS) + " ms",
            fmt(gap)
                + " ms over "
                + handovers
                + " hand-overs ("
                + FairQueueSection.modes(modes)
                + ")",
            handovers > 0 && gap <= DIRECT_GAP_MS,
            note));
    if (bouncer.isMissingNode() || bouncer.isNull()) {
      targets.add(
          row(
              "fair queue: hand-over gap p50, behind PgBouncer",
              "≤ poll interval + " + fmt(BOUNCER_SLACK_MS) + " ms",
              "not measured (no pgbouncer on the PATH)",
              null,
              ""));
      return;
    }
    double bgap = bouncer.path("handoverGapP50Ms").asDouble();
    int bhandovers = bouncer.path("handovers").asInt();
    double goal = poll + BOUNCER_SLACK_MS;
    targets.add(
        row(
            "fair queue: hand-over gap p50, behind PgBouncer (transaction mode), polled",
            "≤ poll interval + " + fmt(BOUNCER_SLACK_MS) + " ms = " + fmt(goal) + " ms",
            fmt(bgap)
                + " ms over "
                + bhandovers
                + " hand-overs ("
                + FairQueueSection.modes(bouncer.path("wakeUpModes"))
                + ")",
            bhandovers > 0 && bgap <= goal,
            bhandovers == 0
                ? "no hand-over between processes"
                : bgap <= goal ? "" : "a poll interval plus the poll's round trip and CPU"));
  }

  private static void idle(List<String[]> targets, JsonNode idle) {
    int waiters = idle.path("waiters").asInt();
    JsonNode per = idle.path("perWaiterPerSecond");
    String modes = FairQueueSection.modes(idle.path("wakeUpModes"));
    targets.add(
        row(
            "fair queue: statements/s per idle waiter (" + waiters + " waiting)",
            "≤ " + fmt(PER_WAITER),
            per.isMissingNode()
                ? fmt(idle.path("perSecond").asDouble()) + " transactions/s in all"
                : fmt(per.asDouble())
                    + " ("
                    + fmt(idle.path("perSecond").asDouble())
                    + "/s in all, "
                    + idle.path("counter").asText()
                    + "; "
                    + modes
                    + ")",
            per.isMissingNode() ? null : per.asDouble() <= PER_WAITER,
            per.isMissingNode() || per.asDouble() <= PER_WAITER
                ? ""
                : "waiters behind the front refresh their tickets four times per lapse; the front"
                    + " reads the holder and polls at its safety net"));
    JsonNode head = idle.path("headPollsPerSecond");
    targets.add(
        row(
            "fair queue: polls/s of the head while the holder has minutes left",
            "< 1",
            head.isMissingNode()
                ? "not measured"
                : fmt(head.asDouble())
                    + " (holder "
                    + fmt(idle.path("holderLeftSeconds").asDouble())
                    + " s left)",
            head.isMissingNode() ? null : head.asDouble() < 1,
            head.isMissingNode() || head.asDouble() < 1
                ? ""
                : "a notified head still polls four times per lapse to keep its ticket"));
  }

  private static void deadHeads(List<String[]> targets, JsonNode deadHeads) {
    if (!deadHeads.isArray() || deadHeads.isEmpty()) {
      targets.add(
          row(
              "fair queue: a dead head (SIGSTOP, SIGKILL) delays the next grant",
              "≤ 1 s",
              "not measured",
              null,
              ""));
      return;
    }
    for (JsonNode d : deadHeads) {
      double delay = d.path("delayMs").asDouble();
      targets.add(
          row(
              "fair queue: a dead head (" + d.path("signal").asText() + ") delays the next grant",
              "≤ 1 s",
              fmt(delay) + " ms",
              delay <= DEAD_HEAD_MS,
              delay <= DEAD_HEAD_MS
                  ? ""
                  : "the released lease stays reserved for the dead head until its ticket"
                      + " lapses (`queue.lapse`)"));
    }
  }

  static String[] row(String what, String goal, String measured, Boolean pass, String note) {
    return new String[] {what, goal, measured, Targets.verdict(pass, note)};
  }
}
