package dev.writerfence.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnfencedWriteTableTest {
  @TempDir Path dir;

  @Test
  void aReportWithNoWritesPrintsNone() throws Exception {
    Path file = dir.resolve("empty.json");
    Files.writeString(
        file, "{\"mode\":\"log\",\"unfenced_writes\":[],\"total_unfenced_writes\":0}");

    AuditReportFile report = AuditReportFile.read(file);

    assertThat(report.mode()).isEqualTo("log");
    assertThat(report.total()).isZero();
    assertThat(print(report.writes())).isEqualTo("none" + System.lineSeparator());
  }

  @Test
  void unknownBucketAndKeyPrintAsDashesAndRefusalsGetAColumn() throws Exception {
    Path file = dir.resolve("enforce.json");
    Files.writeString(
        file,
        """
        {"mode":"enforce","unfenced_writes":[
          {"client":"gcs","operation":"writer","bucket":null,"key":null,"thread":"main",
           "call_site":"com.acme.Job.run(Job.java:7)","required_fence":null,"count":2,
           "refused":2,"first_seen":"2026-11-30T10:00:00Z"}],"total_unfenced_writes":2}
        """);

    AuditReportFile report = AuditReportFile.read(file);
    List<String> lines = print(report.writes()).lines().toList();

    assertThat(report.refused()).isEqualTo(2);
    assertThat(lines.get(0))
        .matches("client +operation +bucket +key/path +call site +via +thread +count +refused");
    assertThat(lines.get(1))
        .matches("gcs +writer +- +- +com\\.acme\\.Job\\.run\\(Job\\.java:7\\) +- +main +2 +2");
  }

  @Test
  void aCallSiteInSeveralReportsIsOneRowWithItsCountsAddedAndKeysSampled() throws Exception {
    Path one = report("one.json", "[\"a\",\"b\",\"c\"]", 3);
    Path two = report("two.json", "[\"c\",\"d\",\"e\",\"f\"]", 4);

    AuditReports reports = AuditReports.read(List.of(one, two));

    assertThat(reports.total()).isEqualTo(7);
    assertThat(reports.writes())
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.count()).isEqualTo(7);
              assertThat(w.keys()).containsExactly("a", "b", "c", "d", "e");
              assertThat(w.moreKeys()).isTrue();
            });
    assertThat(print(reports.writes()))
        .contains("a, b, c, d, e, +more")
        .contains("software.amazon.awssdk.Wrapper.put(Wrapper.java:9)");
  }

  @Test
  void aReportNamedTwiceIsJudgedOnce() throws Exception {
    Path one = report("once.json", "[\"a\"]", 2);

    List<Path> found = AuditReports.find(List.of(one, dir, one));

    assertThat(found).containsExactly(one.toAbsolutePath().normalize());
  }

  private Path report(String name, String keys, int count) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(
        file,
        """
        {"mode":"log","map":false,"unfenced_writes":[
          {"client":"aws-s3-v2","operation":"putObject","bucket":"b","key":"a","thread":"main",
           "call_site":"com.acme.Job.run(Job.java:7)",
           "library_call":"software.amazon.awssdk.Wrapper.put(Wrapper.java:9)",
           "count":%d,"refused":0,"keys":%s,"more_keys":false}]}
        """
            .formatted(count, keys));
    return file;
  }

  @Test
  void aFileThatIsNoReportIsNamed() throws Exception {
    Path file = dir.resolve("other.json");
    Files.writeString(file, "{\"writes\":[]}");

    assertThatThrownBy(() -> AuditReportFile.read(file))
        .hasMessage(file + " is not an audit report: no unfenced_writes array");
  }

  private static String print(List<UnfencedWriteRow> rows) {
    StringWriter text = new StringWriter();
    try (PrintWriter out = new PrintWriter(text)) {
      UnfencedWriteTable.print(out, rows);
    }
    return text.toString();
  }
}
