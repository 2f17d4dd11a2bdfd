package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fair queue's part of the report ({@link FairQueueRun}'s {@value FairQueueRun#FILE}): a table
 * of each phase, the idle load and the dead heads; the targets are judged by {@link
 * FairQueueTargets}.
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
      targets.add(
          FairQueueTargets.row(
              "fair queue (separate processes)", "issues 11 and 27", "not measured", null, ""));
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
                + " queue poll interval %s ms, lapse %d s, listening on) on a pool of 2, calling"
                + " `WriterFence.run` on one fence name; each section sleeps %s ms. After an"
                + " unmeasured warm-up round, the phases below. Sections are timed on the"
                + " machine's one monotonic clock and checked by `SectionChecker`; fairness"
                + " reckoned by test-support's `Fairness`. A hand-over gap runs from one process's"
                + " section exit (before its release) to the next one's entry. Wake-up modes: how"
                + " each process's queued writers were woken at the end of the phase"
                + " (`WriterFence.queueWakeUp()`).%n%n",
            n,
            fmt(poll),
            r.path("lapseSeconds").asLong(),
            fmt(settings.path("sectionMicros").asLong() / 1000.0)));
    md.append(
        "| phase | processes | sections/s | mean section ms | won (min–max each) | Jain's"
            + " index | busy give-ups | time to win p50 / p99 ms (bound) | hand-overs | gap p50 /"
            + " p99 ms | overlaps | token order | wake-up modes |\n");
    md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    for (JsonNode p : phases(r)) {
      phaseRow(md, p);
    }
    JsonNode idle = r.path("idle");
    md.append(
        String.format(
            Locale.ROOT,
            "%nIdle waiters: %d processes waiting while another holds the lease (%s s left) made"
                + " %s statements/s on the server (%s, over %s s): %s per waiter; the head of the"
                + " queue polled %s times (%s/s); wake-up modes %s.%n",
            idle.path("waiters").asInt(),
            fmt(idle.path("holderLeftSeconds").asDouble(Double.NaN)),
            fmt(idle.path("perSecond").asDouble()),
            idle.path("counter").asText("`pg_stat_database` transactions"),
            fmt(idle.path("seconds").asDouble()),
            fmt(idle.path("perWaiterPerSecond").asDouble(Double.NaN)),
            idle.path("headPolls").asText("n/a"),
            fmt(idle.path("headPollsPerSecond").asDouble(Double.NaN)),
            modes(idle.path("wakeUpModes"))));
    for (JsonNode d : r.path("deadHeads")) {
      md.append(
          String.format(
              Locale.ROOT,
              "%nDead head (%s): the waiter at place 1 %s while the lease was held, then the lease"
                  + " released; the waiter behind it (%s) entered its section %s ms later.%n",
              d.path("signal").asText(),
              d.path("signal").asText().equals("SIGKILL") ? "killed" : "stopped",
              d.path("nextMode").asText(),
              fmt(d.path("delayMs").asDouble())));
    }
    if (r.has("queueRowsAfter")) {
      md.append(
          String.format(
              Locale.ROOT,
              "%n`queue_status` rows of the run's fence after the run: %d.%n",
              r.path("queueRowsAfter").asLong()));
    }
    FairQueueTargets.add(r, targets);
  }

  /** The phases measured, in the order run, the missing ones left out. */
  static List<JsonNode> phases(JsonNode r) {
    List<JsonNode> phases = new ArrayList<>();
    for (String key : List.of("single", "fewer", "direct", "bouncer")) {
      JsonNode p = r.path(key);
      if (!p.isMissingNode() && !p.isNull()) {
        phases.add(p);
      }
    }
    return phases;
  }

  /**
   * @param modes an object of mode to count, or a missing node
   * @return {@code notified 60, pending 4}, or {@code n/a}
   */
  static String modes(JsonNode modes) {
    if (!modes.isObject() || modes.isEmpty()) {
      return "n/a";
    }
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, JsonNode> e : modes.properties()) {
      b.append(b.length() == 0 ? "" : ", ").append(e.getKey()).append(' ').append(e.getValue());
    }
    return b.toString();
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
            "| %s | %d | %s | %s | %d (%d–%d) | %.3f | %d | %s / %s (%s) | %d | %s / %s | %d | %d |"
                + " %s |%n",
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
            p.path("tokenOrderViolations").asInt(),
            modes(p.path("wakeUpModes"))));
  }
}
