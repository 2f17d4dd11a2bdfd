package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The fair queue's part of the report ({@link FairQueueRun}'s {@value FairQueueRun#FILE}): a table
 * of each phase and the idle load, and issue 11's targets judged on them.
 */
final class FairQueueSection {
  private static final ObjectMapper JSON = new ObjectMapper();

  private FairQueueSection() {}

  /**
   * @param out the run's directory
   * @param md where the Markdown goes
   * @param targets where the target rows go (what, goal, measured, verdict)
   * @throws IOException when the file cannot be read
   */
  static void write(Path out, StringBuilder md, List<String[]> targets) throws IOException {
    Path file = out.resolve(FairQueueRun.FILE);
    md.append("\n### Fair queue: separate writer processes\n\n");
    if (!Files.exists(file)) {
      md.append("Not measured in this run.\n");
      targets.add(row("fair queue (separate processes)", "issue 11", "not measured", null, ""));
      return;
    }
    JsonNode r = JSON.readTree(file.toFile());
    JsonNode settings = r.path("settings");
    int n = settings.path("contenders").asInt();
    double poll = r.path("pollIntervalMs").asDouble();
    md.append(
        String.format(
            Locale.ROOT,
            "%d contender processes, each a `WriterFence` with default settings (busy budget,"
                + " queue poll interval %s ms, lapse %d s) on a pool of 2, calling"
                + " `WriterFence.run` on one fence name; each section sleeps %s ms. Sections are"
                + " timed on the machine's one monotonic clock and checked by `SectionChecker`;"
                + " fairness reckoned by test-support's `Fairness`. A hand-over gap runs from one"
                + " process's section exit (before its release) to the next one's entry.%n%n",
            n,
            fmt(poll),
            r.path("lapseSeconds").asLong(),
            fmt(settings.path("sectionMicros").asLong() / 1000.0)));
    md.append(
        "| phase | processes | sections/s | mean section ms | won (min–max each) | Jain's"
            + " index | busy give-ups | time to win p50 / p99 ms (bound) | hand-overs | gap p50 /"
            + " p99 ms | overlaps | token order |\n");
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    JsonNode single = r.path("single");
    JsonNode direct = r.path("direct");
    JsonNode bouncer = r.path("bouncer");
    for (JsonNode p : List.of(single, direct, bouncer)) {
      if (!p.isMissingNode() && !p.isNull()) {
        phaseRow(md, p);
      }
    }
    JsonNode idle = r.path("idle");
    md.append(
        String.format(
            Locale.ROOT,
            "%nIdle waiters: %d processes waiting while another holds the lease made %s"
                + " transactions/s on the server (`pg_stat_database`, over %s s); the poll"
                + " schedule allows %s/s.%n",
            idle.path("waiters").asInt(),
            fmt(idle.path("perSecond").asDouble()),
            fmt(idle.path("seconds").asDouble()),
            fmt(idle.path("boundPerSecond").asDouble())));

    String at = n + " processes";
    boolean everyWon = direct.path("everyContenderWon").asBoolean();
    int without = 0;
    for (JsonNode w : direct.path("winsPerContender")) {
      if (w.asLong() == 0) {
        without++;
      }
    }
    targets.add(
        row(
            "fair queue, " + at + ", `WriterFence.run`: every contender wins",
            "all " + n,
            (n - without) + " of " + n + ", busy give-ups " + direct.path("busyGiveUps").asLong(),
            everyWon,
            everyWon ? "" : without + " never won"));
    double jain = direct.path("jainIndex").asDouble();
    targets.add(
        row(
            "fair queue, " + at + ": Jain's index over wins",
            "≥ 0.95",
            String.format(Locale.ROOT, "%.3f", jain),
            jain >= 0.95,
            ""));
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
    double ratio =
        direct.path("sectionsPerSecond").asDouble() / single.path("sectionsPerSecond").asDouble();
    targets.add(
        row(
            "fair queue, " + at + ": critical sections/s ÷ one writer's",
            "≥ 0.80",
            fmt(ratio),
            ratio >= 0.8,
            ratio >= 0.8
                ? ""
                : String.format(Locale.ROOT, "%.0f%% short", (1 - ratio / 0.8) * 100)));
    double gap = direct.path("handoverGapP50Ms").asDouble();
    int handovers = direct.path("handovers").asInt();
    targets.add(
        row(
            "fair queue: hand-over gap p50, direct connection",
            "≤ 5 ms",
            fmt(gap) + " ms over " + handovers + " hand-overs",
            handovers > 0 && gap <= 5,
            handovers > 0 ? "" : "no hand-over between processes"));
    if (bouncer.isMissingNode() || bouncer.isNull()) {
      targets.add(
          row(
              "fair queue: hand-over gap p50, behind PgBouncer",
              "≤ poll interval + 5 ms",
              "not measured (no pgbouncer on the PATH)",
              null,
              ""));
    } else {
      double bgap = bouncer.path("handoverGapP50Ms").asDouble();
      int bhandovers = bouncer.path("handovers").asInt();
      targets.add(
          row(
              "fair queue: hand-over gap p50, behind PgBouncer (transaction mode)",
              "≤ poll interval + 5 ms = " + fmt(poll + 5) + " ms",
              fmt(bgap) + " ms over " + bhandovers + " hand-overs",
              bhandovers > 0 && bgap <= poll + 5,
              bhandovers > 0 ? "" : "no hand-over between processes"));
    }
    double rate = idle.path("perSecond").asDouble();
    double allowed = idle.path("boundPerSecond").asDouble();
    targets.add(
        row(
            "fair queue: database load of " + idle.path("waiters").asInt() + " idle waiters",
            "reported; bounded by the poll intervals (" + fmt(allowed) + "/s)",
            fmt(rate) + " transactions/s",
            rate <= allowed,
            ""));
    int overlaps = 0;
    int order = 0;
    for (JsonNode p : List.of(single, direct, bouncer)) {
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

  private static void phaseRow(StringBuilder md, JsonNode p) {
    long min = Long.MAX_VALUE;
    long max = 0;
    for (JsonNode w : p.path("winsPerContender")) {
      min = Math.min(min, w.asLong());
      max = Math.max(max, w.asLong());
    }
    md.append(
        String.format(
            Locale.ROOT,
            "| %s | %d | %s | %s | %d (%d–%d) | %.3f | %d | %s / %s (%s) | %d | %s / %s | %d | %d |%n",
            p.path("route").asText(),
            p.path("contenders").asInt(),
            fmt(p.path("sectionsPerSecond").asDouble()),
            fmt(p.path("meanSectionMs").asDouble()),
            p.path("sections").asInt(),
            min == Long.MAX_VALUE ? 0 : min,
            max,
            p.path("jainIndex").asDouble(),
            p.path("busyGiveUps").asLong(),
            fmt(p.path("timeToWinP50Ms").asDouble()),
            fmt(p.path("timeToWinP99Ms").asDouble()),
            fmt(p.path("timeToWinBoundMs").asDouble()),
            p.path("handovers").asInt(),
            fmt(p.path("handoverGapP50Ms").asDouble()),
            fmt(p.path("handoverGapP99Ms").asDouble()),
            p.path("overlaps").asInt(),
            p.path("tokenOrderViolations").asInt()));
  }

  private static String[] row(
      String what, String goal, String measured, Boolean pass, String note) {
    return new String[] {what, goal, measured, Targets.verdict(pass, note)};
  }
}
