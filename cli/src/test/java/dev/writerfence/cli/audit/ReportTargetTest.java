package dev.writerfence.cli.audit;

import static dev.writerfence.cli.audit.AuditRuns.audit;
import static dev.writerfence.cli.audit.AuditRuns.shell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.cli.Cli;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.example.audited.SpreadApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit --report PATH -- COMMAND}: a PATH ending in {@code .json} (or an existing file) is
 * one report of all the command's JVMs; a directory (existing, {@code DIR/}, or any other new name)
 * keeps one report per JVM. The command runs for real: {@link SpreadApp} forked with the agent,
 * writing to S3Proxy under fences held in the embedded PostgreSQL.
 */
class ReportTargetTest {
  private static AuditRuns runs;
  private static EmbeddedDatabase db;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    db = EmbeddedDatabase.get();
    runs = AuditRuns.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (runs != null) {
      runs.stop();
    }
  }

  @Test
  void aJsonPathIsOneFileWithTheReportsOfEveryJvmJudgedLaterAsTheRunJudgedThem() throws Exception {
    String bucket = runs.bucket("one-file");
    String fence = FenceNames.random("one-file");
    Path out = dir.resolve("out");
    Path report = out.resolve("r.json");
    Path script = dir.resolve("two-jvms.sh");
    // Two JVMs, each writing 7 unfenced writes at 2 call sites, one after the other.
    String spread = shell(spreadCommand(bucket, fence));
    Files.writeString(script, String.join("\n", "#!/bin/sh", spread, spread, ""));

    Cli.Run run =
        audit(List.of("--map", "--report", report.toString()), List.of("sh", script.toString()));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(report).as("a file, not a directory named r.json").isRegularFile();
    try (Stream<Path> files = Files.list(out)) {
      assertThat(files).as("only the combined report, no per-JVM one").containsExactly(report);
    }
    String summary = "writer-fence audit (log): 14 unfenced writes at 2 call sites";
    assertThat(run.out())
        .contains(summary + " in 2 reports; the command exited with 0")
        .contains("bucket " + bucket + ":");
    assertThat(run.out().lines().filter(l -> l.startsWith("report: ")))
        .containsExactly("report: " + report.toAbsolutePath());

    AuditReportFile combined = AuditReportFile.read(report);
    assertThat(combined.mode()).isEqualTo("log");
    assertThat(combined.map()).isTrue();
    assertThat(combined.total()).isEqualTo(14);
    assertThat(combined.fenced()).isNotEmpty();

    Cli.Run judged = Cli.run("audit", "--map", "--report", report.toString());
    assertThat(judged.exitCode()).as(judged.err() + judged.out()).isZero();
    assertThat(judged.out()).contains(summary).contains("bucket " + bucket + ":");
    assertThat(writerMap(judged.out())).isEqualTo(writerMap(run.out()));

    // Run again: the file is replaced, never added to.
    Cli.Run again = audit(List.of("--report", report.toString()), spreadCommand(bucket, fence));
    assertThat(again.exitCode()).as(again.err() + again.out()).isZero();
    assertThat(AuditReportFile.read(report).total()).isEqualTo(7);
  }

  @Test
  void aDirectoryKeepsOneReportPerJvmWhenAskedForAndAnExistingFileIsWrittenAsAFile()
      throws Exception {
    String bucket = runs.bucket("per-jvm");
    String fence = FenceNames.random("per-jvm");
    Path directory = dir.resolve("reports");
    Path plainFile = Files.writeString(dir.resolve("audit-result"), "old");

    Cli.Run slash = audit(List.of("--report", directory + "/"), spreadCommand(bucket, fence));
    Cli.Run file = audit(List.of("--report", plainFile.toString()), spreadCommand(bucket, fence));

    assertThat(slash.exitCode()).as(slash.err() + slash.out()).isZero();
    assertThat(directory).isDirectory();
    List<Path> perJvm = AuditReports.perJvmReports(directory);
    assertThat(perJvm).hasSize(1);
    assertThat(slash.out()).contains("report: " + perJvm.get(0));
    assertThat(file.exitCode()).as(file.err() + file.out()).isZero();
    assertThat(AuditReportFile.read(plainFile).total()).isEqualTo(7);
  }

  @Test
  void thePathDecidesFileOrDirectory() throws Exception {
    Path existingDirectory = Files.createDirectory(dir.resolve("kept.json"));
    Path existingFile = Files.writeString(dir.resolve("report.txt"), "");

    assertThat(ReportTarget.of(dir.resolve("r.json").toString()))
        .isEqualTo(new ReportTarget(dir.resolve("r.json"), true));
    assertThat(ReportTarget.of(dir.resolve("R.JSON").toString()).file()).isTrue();
    assertThat(ReportTarget.of(existingFile.toString()).file()).isTrue();
    assertThat(ReportTarget.of(existingDirectory.toString()))
        .as("an existing directory stays one, whatever its name")
        .isEqualTo(new ReportTarget(existingDirectory, false));
    assertThat(ReportTarget.of(dir.resolve("new.json") + "/").file()).isFalse();
    assertThat(ReportTarget.of(dir.resolve("reports").toString()).file()).isFalse();
    assertThatThrownBy(() -> ReportTarget.of(existingFile + "/"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ends in '/', a directory for the reports")
        .hasMessageContaining("but is a file");

    Cli.Run refused = Cli.run("audit", "--report", existingFile + "/", "--", "java", "-version");
    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err()).contains("report.txt/' ends in '/'");
    assertThat(existingFile).as("nothing written").isEmptyFile();
  }

  @Test
  void theHelpSaysWhichPathIsAFileAndWhichADirectory() {
    Cli.Run help = Cli.run("audit", "--help");

    assertThat(help.out().replaceAll("\\s+", " "))
        .contains("a PATH ending in .json, or an existing file, gets one report of all its JVMs")
        .contains("is a directory, created, with one audit-<pid>.json per JVM");
  }

  /** The writer map's lines: from its heading to the {@code report:} lines. */
  private static List<String> writerMap(String out) {
    List<String> lines = out.lines().toList();
    int from = 0;
    while (from < lines.size() && !lines.get(from).startsWith("writer map")) {
      from++;
    }
    return lines.subList(from, lines.size()).stream()
        .filter(l -> !l.startsWith("report: "))
        .toList();
  }

  private List<String> spreadCommand(String bucket, String fence) {
    return runs.javaCommand(
        List.of(), SpreadApp.class.getName(), db.jdbcUrl(), fence, fence, bucket);
  }
}
