package dev.writerfence.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.cli.Cli;
import dev.writerfence.testing.EmbeddedDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The demo for real: embedded PostgreSQL, S3Proxy and three writer JVMs forked from this one (the
 * woven {@code CorpusWriter} on the test class path), checked afterwards.
 */
class DemoCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void demoWithThreeWriterProcessesFindsNoViolation() throws Exception {
    Cli.Run run = Cli.run("demo", "--json", "--writers", "3", "--threads", "2", "--seconds", "8");

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
    assertThat(summary.get("busy").asInt()).isNotNegative();
    assertThat(summary.get("objects_checked").asInt()).isPositive();
    assertThat(summary.get("per_writer"))
        .extracting(w -> w.get("writer").asText())
        .containsExactly("write-back", "upload", "pull_sync");
    assertThat(summary.get("per_writer"))
        .allSatisfy(
            w -> {
              assertThat(w.get("acquisitions").asInt()).as(w.toString()).isPositive();
              assertThat(w.get("exit_code").asInt()).isZero();
            });
    int perWriterSum = 0;
    for (JsonNode w : summary.get("per_writer")) {
      perWriterSum += w.get("acquisitions").asInt();
    }
    assertThat(perWriterSum).isEqualTo(summary.get("acquisitions").asInt());
    assertThat(run.err()).contains("acquisitions").contains("holder:");
  }

  @Test
  void demoWithTheFenceBrokenReportsViolationsAndFails() throws Exception {
    // The same run with writers that skip the lease: the checks must catch it end to end.
    Cli.Run run =
        Cli.run(
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
  void demoOnAnExistingDatabaseWithItsOwnSchema() throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    Cli.Run run =
        Cli.run(
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
            "cli_demo");

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out())
        .contains("database: PostgreSQL")
        .contains("write-back")
        .contains("upload")
        .contains(
            "overlaps: 0   token order violations: 0   lease violations: 0   stamp violations: 0")
        .contains("OK: ");
  }

  @Test
  void badDemoSettingsAreUsageErrorsNamingTheValue() {
    Cli.Run zeroWriters = Cli.run("demo", "--writers", "0");
    assertThat(zeroWriters.exitCode()).isEqualTo(2);
    assertThat(zeroWriters.err()).contains("--writers 0 is not allowed: 1 to 12");
    assertThat(zeroWriters.out()).isEmpty();

    Cli.Run notANumber = Cli.run("demo", "--seconds", "soon");
    assertThat(notANumber.exitCode()).isEqualTo(2);
    assertThat(notANumber.err()).contains("--seconds").contains("soon");

    Cli.Run fewKeys = Cli.run("demo", "--keys", "2", "--batch", "4");
    assertThat(fewKeys.exitCode()).isEqualTo(2);
    assertThat(fewKeys.err()).contains("--keys 2 is not allowed");

    Cli.Run badSchema = Cli.run("demo", "--schema", "writer-fence");
    assertThat(badSchema.exitCode()).isEqualTo(2);
    assertThat(badSchema.err()).contains("--schema 'writer-fence' is not allowed");
  }

  @Test
  void writerLabelsFollowTheCorpusWriters() {
    assertThat(WriterProcesses.labels(5))
        .containsExactly("write-back", "upload", "pull_sync", "write-back-2", "upload-2");
  }
}
