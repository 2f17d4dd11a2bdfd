package dev.writerfence.demo;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.cli.audit.UnfencedWriteRow;
import dev.writerfence.cli.audit.WriterMap;
import dev.writerfence.testing.FairnessReport;
import dev.writerfence.testing.Percentiles;

/**
 * The one JSON object a run prints on stdout under {@code --json}: the totals, the count of each
 * kind of violation, the fairness block ({@code fairness}), the hand-over mode ({@code hand_over}),
 * one object per writer, the first violations and failures, what the run ran on, and last the
 * writer acquisition map of the bucket ({@code writer_map}). Measured times are rounded to a tenth.
 */
final class JsonSummary {
  private JsonSummary() {}

  /**
   * @param outcome how the run ended
   * @param workload what each writer did
   * @param environment the servers the run wrote through
   * @return the summary
   */
  static ObjectNode of(DemoOutcome outcome, Workload workload, DemoEnvironment environment) {
    CheckReport check = outcome.check();
    WriterTotals t = outcome.totals();
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("ok", outcome.ok());
    root.put("writers", outcome.results().size());
    root.put("threads", workload.threads());
    root.put("seconds", round(outcome.totalSeconds()));
    root.put("write_seconds", workload.seconds());
    root.put("acquisitions", t.acquisitions());
    root.put("busy", t.busy());
    root.put("retries", t.retries());
    root.put("unavailable", t.unavailable());
    root.put("errors", t.errors());
    root.put("mean_wait_ms", round(t.meanWaitMs()));
    root.put("max_wait_ms", round(t.maxWaitMs()));
    root.put("objects_written", t.objects());
    root.put("objects_checked", check.objects());
    root.put("handovers", check.handovers());
    root.put("max_fencing_token", t.maxToken());
    root.put("overlaps", check.overlaps());
    root.put("token_order_violations", check.tokenOrderViolations());
    root.put("lease_violations", check.leaseViolations());
    root.put("stamp_violations", check.stampViolations());
    root.put("violations", check.violations());
    fairness(root.putObject("fairness"), outcome.fairness());
    handOver(root.putObject("hand_over"), outcome.handOver());
    // The legacy writer's writes the agent listed as unfenced (the fenced writers' never are).
    root.put("unfenced_writes", outcome.legacy().unfencedWrites());
    ArrayNode unfenced = root.putArray("unfenced_write_list");
    for (UnfencedWriteRow u : outcome.legacy().unfenced()) {
      ObjectNode w = unfenced.addObject();
      w.put("client", u.client());
      w.put("operation", u.operation());
      w.put("bucket", u.bucket());
      w.put("key", u.key());
      w.put("call_site", u.callSite());
      w.put("thread", u.thread());
      w.put("count", u.count());
    }
    ArrayNode perWriter = root.putArray("per_writer");
    outcome.results().forEach(r -> writer(perWriter.addObject(), r));
    ArrayNode examples = root.putArray("violation_examples");
    check.examples().forEach(examples::add);
    ArrayNode failures = root.putArray("failures");
    outcome.failures().forEach(failures::add);
    root.put("fence_name", workload.fenceName());
    root.put("database", environment.databaseName());
    root.put(
        "storage",
        "S3Proxy transient at "
            + environment.storageEndpoint()
            + ", bucket "
            + DemoEnvironment.BUCKET);
    writerMap(root.putObject("writer_map"), outcome.writerMap());
    return root;
  }

  /**
   * Last: the bucket, and one object per writer of it, {@link WriterMap.Writer}'s fields in snake
   * case ({@code fence_name} and {@code holder_label} null for an unfenced writer, {@code
   * library_call} null for a writer that called the client itself), its status as {@code writer-
   * fence audit --map} prints it.
   */
  private static void writerMap(ObjectNode m, DemoWriterMap writerMap) {
    m.put("bucket", writerMap.bucket());
    ArrayNode writers = m.putArray("writers");
    for (WriterMap.Writer w : writerMap.map().writers()) {
      ObjectNode o = Json.MAPPER.valueToTree(w);
      o.put("status", w.status().label());
      writers.add(o);
    }
  }

  /** The fairness block; times in milliseconds. */
  private static void fairness(ObjectNode f, FairnessReport fairness) {
    f.put("every_writer_acquired", fairness.everyWriterWon());
    ArrayNode without = f.putArray("writers_without_acquisition");
    fairness.writersWithoutWin().forEach(without::add);
    f.put("jain_index", Math.round(fairness.jainIndex() * 1000.0) / 1000.0);
    f.put("jain_target", DemoOutcome.JAIN_TARGET);
    f.put("busy_give_ups", fairness.busyGiveUps());
    f.put("target_met", DemoOutcome.meetsFairnessTarget(fairness));
    f.put("time_to_win_p50_ms", round(Percentiles.millis(fairness.timeToWin().p50())));
    f.put("time_to_win_p99_ms", round(Percentiles.millis(fairness.timeToWin().p99())));
    f.put("handovers", fairness.handovers());
    f.put("handover_gap_p50_ms", round(Percentiles.millis(fairness.handoverGap().p50())));
    f.put("handover_gap_p99_ms", round(Percentiles.millis(fairness.handoverGap().p99())));
  }

  /**
   * How the writer processes learnt of a release: the leading mode, writer processes per mode
   * ({@code notified}, {@code polled}, {@code pending}, {@code off}, {@code unreported}, each
   * present, 0 when none), and the gap in milliseconds.
   */
  private static void handOver(ObjectNode h, HandOverSummary handOver) {
    h.put("mode", handOver.leadingMode());
    h.put("writers", handOver.writers());
    ObjectNode modes = h.putObject("modes");
    for (String mode : HandOverSummary.MODES) {
      modes.put(mode, handOver.count(mode));
    }
    modes.put(HandOverSummary.UNREPORTED, handOver.count(HandOverSummary.UNREPORTED));
    h.put("gap_p50_ms", round(Percentiles.millis(handOver.gap().p50())));
    h.put("gap_p99_ms", round(Percentiles.millis(handOver.gap().p99())));
    h.put("line", handOver.line());
  }

  /** One writer; {@code exit_code} is null when the writer had to be killed. */
  private static void writer(ObjectNode w, WriterResult r) {
    w.put("writer", r.writer());
    w.put("pid", r.pid());
    w.put("threads", r.threads());
    w.put("acquisitions", r.acquisitions());
    w.put("busy", r.busy());
    w.put("retries", r.retries());
    w.put("mean_wait_ms", round(r.meanWaitMs()));
    w.put("max_wait_ms", round(r.maxWaitUs() / 1000.0));
    w.put("objects_written", r.objects());
    w.put("hand_over", r.handOver());
    w.put("unavailable", r.unavailable());
    w.put("errors", r.errors());
    if (r.exitCode() != null) {
      w.put("exit_code", r.exitCode());
    } else {
      w.putNull("exit_code");
    }
  }

  private static double round(double v) {
    return Math.round(v * 10.0) / 10.0;
  }
}
