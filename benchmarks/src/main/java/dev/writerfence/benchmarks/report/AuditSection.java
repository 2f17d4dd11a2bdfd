package dev.writerfence.benchmarks.report;

import static dev.writerfence.benchmarks.report.Format.fmt;
import static dev.writerfence.benchmarks.report.Format.percent;

import dev.writerfence.benchmarks.report.JmhResults.Row;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The audit advice part of the report: each audited file call with and without the agent, the same
 * judgement on the gate calls alone, the calls enforce mode lets through in its own fork, and what
 * an unfenced write adds as a share of the cheapest real writes the audit guards; each with its
 * target.
 */
final class AuditSection {
  private final Path out;
  private final String imagePrefix;
  private final StringBuilder md;
  private final List<String[]> targets;

  private AuditSection(Path out, String imagePrefix, StringBuilder md, List<String[]> targets) {
    this.out = out;
    this.imagePrefix = imagePrefix;
    this.md = md;
    this.targets = targets;
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
    new AuditSection(out, imagePrefix, md, targets).build();
  }

  /** The audit rows: each file call with and without the agent, and what the advice added. */
  private void build() throws IOException {
    List<Row> without = JmhResults.read(out.resolve("audit-noagent.json"));
    List<Row> with = JmhResults.read(out.resolve("audit-agent.json"));
    md.append(
        "\nAudit advice per call (`AuditBenchmark`): the JDK's file classes, which the agent"
            + " instruments when `audit.paths` is set, in a fork without the agent and in one with"
            + " it (`audit.mode=log`, `audit.paths` = the benchmark's `audited/` directory). Added"
            + " = with − without, per call.\n\n");
    if (with.isEmpty()) {
      md.append(
          "Not measured: "
              + (without.isEmpty()
                  ? "the audit benchmark did not run."
                  : "no fork with the agent in this plan, or agent/target/writer-fence-agent.jar"
                      + " not built.")
              + "\n");
      Targets.add(targets, "audit advice per intercepted call", "< 200 ns", "not run", null, "");
      return;
    }
    md.append(
        "| call | without the agent: fastest sample, median (ns) | with it: fastest, median (ns)"
            + " | added, fastest samples (ns) | added, medians (ns) |\n"
            + "| --- | --- | --- | --- | --- |\n");
    DefaultCategoryDataset chart = new DefaultCategoryDataset();
    for (String call :
        new String[] {"outside", "fencedWrite", "unfencedWrite", "fileWrite4k", "s3Put"}) {
      Optional<Row> a = JmhResults.find(without, call);
      Optional<Row> b = JmhResults.find(with, call);
      if (a.isEmpty() || b.isEmpty()) {
        continue;
      }
      double fastA = a.get().percentile("0.0");
      double fastB = b.get().percentile("0.0");
      double medA = a.get().percentile("50.0");
      double medB = b.get().percentile("50.0");
      double added = fastB - fastA;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s, %s | %s, %s | %s | %s |%n",
              auditLabel(call),
              fmt(fastA),
              fmt(medA),
              fmt(fastB),
              fmt(medB),
              fmt(added),
              fmt(medB - medA)));
      chart.addValue(fastA, "without the agent", call);
      chart.addValue(fastB, "with the agent (audit log)", call);
      if (call.equals("unfencedWrite")) {
        // The other two file rows differ by less than two forks of the same file open do; the
        // gate rows below judge them. This one is far outside that spread.
        Targets.add(
            targets,
            "audit advice per intercepted call: " + auditLabel(call),
            "< 200 ns",
            fmt(added) + " ns",
            Double.isNaN(added) ? null : added < 200,
            added < 200
                ? "fastest samples"
                : String.format(Locale.ROOT, "%.0f ns over: a stack walk per call", added - 200));
      }
    }
    md.append(
        "\nA file open is microseconds of system calls, and the spread of its fastest sample"
            + " between two forks (several hundred ns either way on this machine, from run to run)"
            + " is wider than the goal: the first two rows are judged by the gate rows below"
            + " instead."
            + " A write with no fence held is reported once per call"
            + " site (client, operation, first application frame); every later call from that site"
            + " still walks the stack to find its call site before it is counted: the cost in the"
            + " third row. The last two are the cheapest real writes the audit guards, written with"
            + " no fence: a 4 kB file (open, write 4,096 bytes, close; the open truncates it, no"
            + " fsync) and a 4 kB PUT through the AWS SDK v2 `S3Client` to S3Proxy on 127.0.0.1"
            + " (in-memory store, in the same fork). Each method runs in a fork of its own; the"
            + " agent's report of the last, `audit-report.json` beside the JSON, lists"
            + " `unfencedWrite`'s call site alone.\n");
    gate(without, with);
    enforce(without, with, JmhResults.read(out.resolve("audit-enforce.json")));
    share(without, with);
    if (chart.getColumnCount() > 0) {
      Charts.bars(
          out.resolve("audit.png"),
          "File calls with and without the agent's audit advice (fastest sample)",
          "call",
          "ns per call",
          chart,
          false);
      md.append("\n![audit](").append(imagePrefix).append("audit.png)\n");
    }
  }

  /** The gate rows: what the inlined advice calls, called directly, without the system calls. */
  private void gate(List<Row> without, List<Row> with) {
    md.append(
        "\nThe same judgement without the file system (`gate…` methods: the calls the inlined"
            + " advice makes to the bootstrap `FileWriteGate`, made directly with the same"
            + " arguments; judged on medians, since at this size the fastest sample is the timer's"
            + " resolution and a mean takes in every time slice spent waiting for a core):\n\n"
            + "| gate call | without the agent: fastest, median (ns) | with it: fastest, median"
            + " (ns) | added, medians (ns) |\n"
            + "| --- | --- | --- | --- |\n");
    for (String call : new String[] {"read", "outside", "fencedWrite", "unfencedWrite"}) {
      String method = "gate" + Character.toUpperCase(call.charAt(0)) + call.substring(1);
      Optional<Row> a = JmhResults.find(without, method);
      Optional<Row> b = JmhResults.find(with, method);
      if (a.isEmpty() || b.isEmpty()) {
        continue;
      }
      double added = b.get().percentile("50.0") - a.get().percentile("50.0");
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s, %s | %s, %s | %s |%n",
              auditLabel(call),
              fmt(a.get().percentile("0.0")),
              fmt(a.get().percentile("50.0")),
              fmt(b.get().percentile("0.0")),
              fmt(b.get().percentile("50.0")),
              fmt(added)));
      if (call.equals("unfencedWrite")) {
        continue; // judged against the writes it guards (share) and by the file row above
      }
      Targets.add(
          targets,
          "audit advice per intercepted call: " + auditLabel(call) + ", gate alone",
          "< 200 ns",
          fmt(added) + " ns",
          Double.isNaN(added) ? null : added < 200,
          added < 200 ? "medians" : String.format(Locale.ROOT, "%.0f ns over", added - 200));
    }
  }

  /**
   * The calls enforce mode lets through, measured in a third fork ({@code audit.mode=enforce})
   * beside the log fork's: fastest samples and medians, with enforce − log on medians. Nothing is
   * written when that fork did not run (an older run's directory).
   */
  private void enforce(List<Row> without, List<Row> log, List<Row> enforce) {
    if (enforce.isEmpty()) {
      return;
    }
    md.append(
        "\nEnforce mode (a third fork, `audit.mode=enforce`, the unfenced writes left out: it"
            + " refuses them): a write whose path matches no audited root as text is compared again"
            + " by its real path (nearest existing ancestor resolved per write), so the `outside`"
            + " rows pay that resolution while writes under `audit.paths` match as text.\n\n"
            + "| call | without the agent: fastest, median (ns) | log: fastest, median (ns)"
            + " | enforce: fastest, median (ns) | enforce − log, medians (ns) |\n"
            + "| --- | --- | --- | --- | --- |\n");
    for (String method :
        new String[] {"outside", "fencedWrite", "gateRead", "gateOutside", "gateFencedWrite"}) {
      Optional<Row> a = JmhResults.find(without, method);
      Optional<Row> b = JmhResults.find(log, method);
      Optional<Row> c = JmhResults.find(enforce, method);
      if (c.isEmpty()) {
        continue;
      }
      double logMedian = b.map(r -> r.percentile("50.0")).orElse(Double.NaN);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s |%n",
              enforceLabel(method),
              fastestMedian(a),
              fastestMedian(b),
              fastestMedian(c),
              fmt(c.get().percentile("50.0") - logMedian)));
    }
  }

  private static String fastestMedian(Optional<Row> row) {
    return row.map(r -> fmt(r.percentile("0.0")) + ", " + fmt(r.percentile("50.0"))).orElse("—");
  }

  private static String enforceLabel(String method) {
    if (!method.startsWith("gate")) {
      return auditLabel(method);
    }
    String call = Character.toLowerCase(method.charAt(4)) + method.substring(5);
    return auditLabel(call) + ", gate alone";
  }

  /**
   * What an unfenced write whose call site is already reported adds, as a share of the cheapest
   * real writes the audit guards. The added cost is the gate row's (with and without the agent, no
   * system call in it: the spread of two forks' file writes is wider than the cost); the write's
   * cost is its own without the agent. Both medians and fastest samples are compared, and the goal
   * is met only when both shares are under it: a file write's median swings several-fold with what
   * else uses the disk, its fastest sample does not. The same write measured with the agent is
   * shown beside, as a check.
   */
  private void share(List<Row> without, List<Row> with) {
    Optional<Row> gateA = JmhResults.find(without, "gateUnfencedWrite");
    Optional<Row> gateB = JmhResults.find(with, "gateUnfencedWrite");
    md.append(
        "\nAn unfenced write whose call site is already reported, against the writes it guards:"
            + " the audit's added cost (the gate row above) as a share of the write without the"
            + " agent, on medians and on fastest samples; beside it, the same write measured with"
            + " the agent minus without (medians, two forks: the noisier figure). The goal (< 1%)"
            + " is met only when both shares are under it.\n\n"
            + "| write | without the agent: fastest, median (ns) | audit's added cost: fastest,"
            + " median (ns) | share: fastest, median | with − without, medians (ns) |\n"
            + "| --- | --- | --- | --- | --- |\n");
    for (String call : new String[] {"fileWrite4k", "s3Put"}) {
      Optional<Row> a = JmhResults.find(without, call);
      Optional<Row> b = JmhResults.find(with, call);
      String what = "unfenced write already reported: added cost as a share of " + writeLabel(call);
      if (gateA.isEmpty() || gateB.isEmpty() || a.isEmpty() || b.isEmpty()) {
        Targets.add(targets, what, "< 1%", "not run", null, "");
        continue;
      }
      double addedMedian = gateB.get().percentile("50.0") - gateA.get().percentile("50.0");
      double addedFastest = gateB.get().percentile("0.0") - gateA.get().percentile("0.0");
      double writeMedian = a.get().percentile("50.0");
      double writeFastest = a.get().percentile("0.0");
      double median = addedMedian / writeMedian;
      double fastest = addedFastest / writeFastest;
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s, %s | %s, %s | %s, %s | %s |%n",
              writeLabel(call),
              fmt(writeFastest),
              fmt(writeMedian),
              fmt(addedFastest),
              fmt(addedMedian),
              percent(fastest),
              percent(median),
              fmt(b.get().percentile("50.0") - writeMedian)));
      double worse = Math.max(median, fastest);
      Targets.add(
          targets,
          what,
          "< 1%",
          String.format(
              Locale.ROOT,
              "%s of fastest samples (%s of %s ns), %s of medians (%s of %s ns)",
              percent(fastest),
              fmt(addedFastest),
              fmt(writeFastest),
              percent(median),
              fmt(addedMedian),
              fmt(writeMedian)),
          Double.isNaN(worse) ? null : worse < 0.01,
          worse < 0.01
              ? ""
              : "the stack walk that finds the call site is more than 1% of a write this small");
    }
  }

  private static String writeLabel(String call) {
    return call.equals("s3Put")
        ? "an S3Proxy PUT of 4 kB (127.0.0.1, same fork)"
        : "a 4 kB file write (open, write, close)";
  }

  private static String auditLabel(String call) {
    return switch (call) {
      case "read" -> "not a write (`RandomAccessFile` \"r\" under `audit.paths`)";
      case "outside" -> "not audited (`FileOutputStream` outside `audit.paths`)";
      case "fencedWrite" -> "a write, fence held (`FileOutputStream` under `audit.paths`)";
      case "unfencedWrite" -> "a write, no fence, call site already reported";
      case "fileWrite4k" -> "a 4 kB file written (open, write, close), no fence, site reported";
      case "s3Put" -> "a 4 kB S3Proxy PUT (AWS SDK v2), no fence, site reported";
      default -> call;
    };
  }
}
