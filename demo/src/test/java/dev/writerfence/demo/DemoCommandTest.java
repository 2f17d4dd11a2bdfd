package dev.writerfence.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.cli.Cli;
import dev.writerfence.cli.audit.MermaidFlowchart;
import dev.writerfence.testing.EmbeddedDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo for real: embedded PostgreSQL, S3Proxy and three writer JVMs forked from this one (the
 * woven {@code CorpusWriter} on the test class path), checked afterwards.
 */
class DemoCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path maps;

  @Test
  void demoWithThreeWriterProcessesFindsNoViolation() throws Exception {
    Cli.Run run = run("demo", "--json", "--writers", "3", "--threads", "2", "--seconds", "8");

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    JsonNode summary = JSON.readTree(run.out()); // stdout is one JSON object, nothing else
    assertThat(summary.get("ok").asBoolean()).isTrue();
    assertThat(summary.get("writers").asInt()).isEqualTo(3);
    assertThat(summary.get("overlaps").asInt()).isZero();
    assertThat(summary.get("token_order_violations").asInt()).isZero();
    assertThat(summary.get("lease_violations").asInt()).isZero();
    assertThat(summary.get("stamp_violations").asInt()).isZero();
    assertThat(summary.get("violations").asInt()).isZero();
    assertThat(summary.get("errors").asInt()).isZero();
    assertThat(summary.get("acquisitions").asInt()).isPositive();
    // Fairness beside exclusion (issue 11): the processes queue as one waiter each, so every one
    // acquires, their shares are close (the target is 0.95; the bound here leaves room for a
    // short, loaded run), and no call runs out of its default budget.
    JsonNode fairness = summary.get("fairness");
    assertThat(fairness.get("every_writer_acquired").asBoolean()).as(fairness.toString()).isTrue();
    assertThat(fairness.get("writers_without_acquisition")).isEmpty();
    assertThat(fairness.get("jain_index").asDouble()).as(fairness.toString()).isGreaterThan(0.9);
    assertThat(fairness.get("busy_give_ups").asLong()).as(fairness.toString()).isZero();
    assertThat(summary.get("busy").asLong()).isZero();
    assertThat(fairness.get("handovers").asInt())
        .as("the fence passed between the processes")
        .isPositive()
        .isEqualTo(summary.get("handovers").asInt());
    assertThat(summary.get("objects_checked").asInt()).isPositive();
    // Each writer process proves its own listener (ADR 65): on this direct connection every one
    // that waited in the queue was woken by the release's notification, none polled. A writer that
    // never had to queue (possible on a loaded machine) stays pending.
    JsonNode handOver = summary.get("hand_over");
    JsonNode modes = handOver.get("modes");
    assertThat(handOver.get("mode").asText()).as(handOver.toString()).isEqualTo("notified");
    assertThat(modes.get("notified").asInt()).as(handOver.toString()).isPositive();
    assertThat(modes.get("notified").asInt() + modes.get("pending").asInt())
        .as(handOver.toString())
        .isEqualTo(3);
    assertThat(handOver.get("writers").asInt()).isEqualTo(3);
    assertThat(summary.get("per_writer"))
        .allSatisfy(w -> assertThat(w.get("hand_over").asText()).isIn("notified", "pending"));
    assertThat(summary.get("per_writer"))
        .extracting(w -> w.get("writer").asText())
        .containsExactly("write-back", "upload", "pull_sync");
    assertThat(summary.get("per_writer"))
        .allSatisfy(
            w -> {
              assertThat(w.get("acquisitions").asInt()).as(w.toString()).isPositive();
              assertThat(w.get("busy").asInt()).as(w.toString()).isZero();
              // each section it ran wrote one whole batch (--batch, 4 by default)
              assertThat(w.get("objects_written").asInt())
                  .as(w.toString())
                  .isEqualTo(4 * w.get("acquisitions").asInt());
              assertThat(w.get("exit_code").asInt()).isZero();
            });
    int perWriterSum = 0;
    for (JsonNode w : summary.get("per_writer")) {
      perWriterSum += w.get("acquisitions").asInt();
    }
    assertThat(perWriterSum).isEqualTo(summary.get("acquisitions").asInt());
    assertThat(summary.get("fence_name").asText()).isEqualTo("corpus");
    assertThat(summary.get("unfenced_writes").asLong()).isEqualTo(1); // the legacy writer's only
    assertWriterMapListsEachWriterFenced(summary, "corpus");
    Matcher picture =
        Pattern.compile("writer map picture \\(open it in a browser\\): (\\S+)").matcher(run.err());
    assertThat(picture.find()).as(run.err()).isTrue();
    assertPictureShowsEachWriterFenced(Path.of(picture.group(1)), summary);
    assertThat(run.err())
        .contains("each writes for 8 s once started, fence 'corpus'")
        .containsPattern("\\[ *[0-9.]+ s\\] finished sections +[0-9]+  holder: ");
  }

  /**
   * The summary ends with the writer map of the bucket: each writer process once, fenced under the
   * run's fence, by its holder label, at the application's call site, with as many writes as it
   * wrote objects; no writer of another status.
   */
  private static void assertWriterMapListsEachWriterFenced(JsonNode summary, String fence) {
    List<String> fields = new ArrayList<>();
    summary.fieldNames().forEachRemaining(fields::add);
    assertThat(fields).last().isEqualTo("writer_map");
    JsonNode map = summary.get("writer_map");
    assertThat(map.get("bucket").asText()).isEqualTo(DemoEnvironment.BUCKET);
    JsonNode writers = map.get("writers");
    assertThat(writers).as(map.toPrettyString()).hasSameSizeAs(summary.get("per_writer"));
    assertThat(writers)
        .as(map.toPrettyString())
        .allSatisfy(
            w -> {
              assertThat(w.get("status").asText()).isEqualTo("fenced");
              assertThat(w.get("fence_name").asText()).isEqualTo(fence);
              assertThat(w.get("client").asText()).isEqualTo("aws-s3-v2");
              assertThat(w.get("call_site").asText())
                  .startsWith(CorpusWriter.class.getName() + ".");
            });
    for (JsonNode r : summary.get("per_writer")) {
      String label = r.get("writer").asText();
      assertThat(writers)
          .as(map.toPrettyString())
          .filteredOn(w -> w.get("holder_label").asText().startsWith(label + "@"))
          .singleElement()
          .satisfies(
              w ->
                  assertThat(w.get("count").asLong())
                      .as("%s's writes, one per object it wrote", label)
                      .isEqualTo(r.get("objects_written").asLong()));
    }
  }

  @Test
  void demoListsTheLegacyWritersUnfencedWriteAndNoneOfTheFencedOnes() throws Exception {
    Cli.Run run = run("demo", "--json", "--writers", "2", "--threads", "1", "--seconds", "2");

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    JsonNode summary = JSON.readTree(run.out());
    assertThat(summary.get("acquisitions").asInt()).isPositive(); // the fenced writers wrote
    assertThat(summary.get("unfenced_writes").isNumber()).isTrue();
    assertThat(summary.get("unfenced_writes").asLong()).isEqualTo(1);
    assertThat(summary.get("unfenced_write_list"))
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.get("client").asText()).isEqualTo("aws-s3-v2");
              assertThat(w.get("operation").asText()).isEqualTo("putObject");
              assertThat(w.get("bucket").asText()).isEqualTo(DemoEnvironment.LEGACY_BUCKET);
              assertThat(w.get("key").asText()).isEqualTo(LegacyProcess.KEY);
              assertThat(w.get("call_site").asText())
                  .startsWith(LegacyWriter.class.getName() + ".export(LegacyWriter.java:");
              assertThat(w.get("count").asLong()).isEqualTo(1);
            });
  }

  @Test
  void demoWithTheFenceBrokenReportsViolationsAndFails() throws Exception {
    // The same run with writers that skip the lease: the checks must catch it end to end.
    Cli.Run run =
        run(
            "demo",
            "--json",
            "--break-fence",
            "--writers",
            "3",
            "--threads",
            "2",
            "--seconds",
            "3");

    assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(1);
    JsonNode summary = JSON.readTree(run.out());
    assertThat(summary.get("ok").asBoolean()).isFalse();
    assertThat(summary.get("overlaps").asInt()).isPositive();
    assertThat(summary.get("token_order_violations").asInt()).isPositive();
    assertThat(summary.get("violations").asInt()).isPositive();
    assertThat(summary.get("violation_examples")).isNotEmpty();

    // A failed run keeps its folder for inspection and says where; this one was expected.
    Matcher kept = Pattern.compile("record and logs kept in (\\S+)").matcher(run.err());
    assertThat(kept.find()).as(run.err()).isTrue();
    try (Stream<Path> files = Files.walk(Path.of(kept.group(1)))) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  @Test
  void demoOnAnExistingDatabaseWithItsOwnSchemaAndFenceName() throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    Cli.Run run =
        run(
            "demo",
            "--writers",
            "2",
            "--threads",
            "1",
            "--seconds",
            "3",
            "--jdbc-url",
            db.jdbcUrl(),
            "--user",
            "postgres",
            "--schema",
            "cli_demo",
            "--fence",
            "cli demo: corpus");

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out())
        .contains(
            "2 writer processes x 1 threads, each writes for 3 s once started, fence 'cli demo: corpus'")
        .contains("database: PostgreSQL")
        .contains("write-back")
        .contains("upload")
        .containsPattern("finished sections +[0-9]+  holder: ")
        .contains(
            "overlaps: 0   token order violations: 0   lease violations: 0   stamp violations: 0")
        .containsPattern(
            "fairness: 2 of 2 writer processes acquired   Jain's index: [01]\\.[0-9]{3} \\(target"
                + " >= 0\\.95: (met|missed)\\)   busy give-ups: [0-9]+")
        .containsPattern(
            "time to win: p50 [0-9.]+ ms   p99 [0-9.]+ ms   hand-over gap: p50 [0-9.]+ ms   p99"
                + " [0-9.]+ ms")
        .contains("OK: ")
        .containsPattern(
            "unfenced writes \\(the legacy writer, pid [0-9]+, run with the agent in audit log"
                + " mode\\): 1")
        .containsPattern(
            "aws-s3-v2 +putObject +legacy-exports +exports/nightly.json +"
                + "dev\\.writerfence\\.demo\\.LegacyWriter\\.export\\(LegacyWriter\\.java:[0-9]+\\)"
                + " +- +main +1"); // "-": called the client itself, through no wrapper library
    // the legend sits right under the table, before the violation counts
    assertThat(run.out())
        .contains(String.join(System.lineSeparator(), TextSummary.LEGEND) + System.lineSeparator());
    assertThat(run.out().indexOf("busy = fenced calls that gave up after their retries"))
        .isGreaterThan(run.out().indexOf("total "))
        .isLessThan(run.out().indexOf("overlaps: 0"));
    // the fairness block sits beside the violation counts, before the legacy writer's audit
    assertThat(run.out().indexOf("fairness: "))
        .isGreaterThan(run.out().indexOf("overlaps: 0"))
        .isLessThan(run.out().indexOf("unfenced writes ("));
    // the hand-over line follows the fairness block: the writers that waited were notified (a
    // writer that never had to queue stays pending), with the gap
    String handOver =
        run.out().lines().filter(l -> l.startsWith("hand-over: ")).findFirst().orElseThrow();
    assertThat(handOver)
        .matches(
            "hand-over: notified in [12]/2 writers( \\(pending 1\\))?, gap p50 [0-9.]+ ms p99"
                + " [0-9.]+ ms");
    assertThat(run.out().indexOf(handOver))
        .isGreaterThan(run.out().indexOf("time to win: "))
        .isLessThan(run.out().indexOf("unfenced writes ("));
    // last, the writer map of the bucket: each writer fenced under that name, and no other
    String out = run.out();
    String mapHeader = "writer acquisition map of bucket " + DemoEnvironment.BUCKET;
    assertThat(out.indexOf(mapHeader)).isGreaterThan(out.indexOf("OK: "));
    String map = out.substring(out.indexOf(mapHeader));
    assertThat(map).containsPattern("writer map picture \\(open it in a browser\\): \\S+\\.html");
    assertThat(map)
        .contains(
            "bucket "
                + DemoEnvironment.BUCKET
                + ": fenced: every writer holds fence 'cli demo: corpus'")
        .doesNotContain("unfenced", "inconsistent", "UNFENCED", "INCONSISTENT");
    List<String> rows =
        map.lines().filter(l -> l.startsWith("fenced ")).map(String::strip).toList();
    assertThat(rows)
        .as(map)
        .hasSize(2)
        .anySatisfy(l -> assertThat(l).contains("cli demo: corpus", " write-back@"))
        .anySatisfy(l -> assertThat(l).contains("cli demo: corpus", " upload@"))
        .allSatisfy(l -> assertThat(l).contains(CorpusWriter.class.getName() + "."));
    assertThat(out.strip().lines().reduce((a, b) -> b).orElseThrow())
        .as("the summary ends with the map")
        .isIn(rows);
    // the writers took the fence of that name, and no other, in that schema
    assertThat(
            db.queryValue(
                String.class, "SELECT string_agg(fence_name, ',') FROM cli_demo.lease_status"))
        .isEqualTo("cli demo: corpus");
    assertThat(
            db.queryValue(
                Long.class,
                "SELECT fencing_token FROM cli_demo.lease_status WHERE fence_name = ?",
                "cli demo: corpus"))
        .isPositive();
  }

  @Test
  void badFenceNameIsAUsageErrorNamingItAndStartsNothing() {
    Cli.Run run = run("demo", "--fence", " corpus");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err().lines())
        .containsExactly(
            "writer-fence: --fence ' corpus' is not allowed: 1 to 200 characters, no control or"
                + " format characters, no leading or trailing white space",
            "Try './writer-fence demo --help'");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void demoHelpSaysToPickAUniqueFenceAndSchemaOnASharedDatabase() {
    Cli.Run run = run("demo", "--help");

    assertThat(run.exitCode()).isZero();
    String help = run.out().replaceAll("\\s+", " ");
    assertThat(help)
        .contains("[--jdbc-url=URL]") // optional: without it the demo starts its own
        .contains("--fence=NAME")
        .contains("(default: corpus)")
        .contains("on a shared database, pick a fence name and a schema that no real writer uses");
  }

  @Test
  void badDemoSettingsAreUsageErrorsNamingTheValue() {
    // one line and where the usage is, as every writer-fence command says it
    Cli.Run zeroWriters = run("demo", "--writers", "0");
    assertThat(zeroWriters.exitCode()).isEqualTo(2);
    assertThat(zeroWriters.err().lines())
        .containsExactly(
            "writer-fence: --writers 0 is not allowed: 1 to 12 writer processes",
            "Try './writer-fence demo --help'");
    assertThat(zeroWriters.out()).isEmpty();

    Cli.Run notANumber = run("demo", "--seconds", "soon");
    assertThat(notANumber.exitCode()).isEqualTo(2);
    assertThat(notANumber.err().lines())
        .containsExactly(
            "writer-fence: invalid value for option '--seconds': 'soon' is not an int",
            "Try './writer-fence demo --help'");

    Cli.Run fewKeys = run("demo", "--keys", "2", "--batch", "4");
    assertThat(fewKeys.exitCode()).isEqualTo(2);
    assertThat(fewKeys.err()).contains("--keys 2 is not allowed");

    Cli.Run badSchema = run("demo", "--schema", "writer-fence");
    assertThat(badSchema.exitCode()).isEqualTo(2);
    assertThat(badSchema.err()).contains("--schema 'writer-fence' is not allowed");
  }

  @Test
  void writerLabelsFollowTheCorpusWriters() {
    assertThat(WriterProcesses.labels(5))
        .containsExactly("write-back", "upload", "pull_sync", "write-back-2", "upload-2");
  }

  /** A demo run writes its map's picture among this test's files, not the working directory. */
  private static Cli.Run run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    if (all.get(0).equals("demo") && !all.contains("--map-file")) {
      all.add("--map-file");
      all.add(maps.resolve("writer-map-" + UUID.randomUUID() + ".html").toString());
    }
    return Cli.runOn(DemoCli.commandLine(), all.toArray(String[]::new));
  }

  /**
   * The picture of the map, written beside the summary: the flowchart has the bucket, the run's
   * fence name and one writer per process, each fenced and holding that name; the page's table has
   * the same writers.
   */
  private static void assertPictureShowsEachWriterFenced(Path picture, JsonNode summary)
      throws Exception {
    Document page = Jsoup.parse(picture.toFile(), "UTF-8");
    MermaidFlowchart chart = MermaidFlowchart.parse(page.selectFirst("pre.mermaid").wholeText());
    assertThat(chart.subgraphs()).containsExactly(entry("s0", "bucket " + DemoEnvironment.BUCKET));
    assertThat(chart.textOf("b0")).isEqualTo(DemoEnvironment.BUCKET);
    assertThat(chart.textOf("f0_0")).isEqualTo("fence " + summary.get("fence_name").asText());
    List<String> labels = new ArrayList<>();
    summary.get("per_writer").forEach(w -> labels.add(w.get("writer").asText()));
    List<String> writers =
        chart.nodes().keySet().stream().filter(id -> id.startsWith("w")).toList();
    assertThat(writers).hasSameSizeAs(labels);
    for (String id : writers) {
      assertThat(chart.classes()).containsEntry(id, "fenced");
      assertThat(chart.edges()).contains(id + " -->|holds| f0_0");
      assertThat(chart.textOf(id)).contains(CorpusWriter.class.getName() + ".");
    }
    for (String label : labels) {
      assertThat(writers).anySatisfy(id -> assertThat(chart.textOf(id)).startsWith(label + "@"));
    }
    assertThat(page.select("table.writer-map tbody tr"))
        .hasSameSizeAs(labels)
        .allSatisfy(row -> assertThat(row.className()).isEqualTo("fenced"));
  }
}
