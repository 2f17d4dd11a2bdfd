package dev.writerfence.internal.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.internal.audit.AuditReportDocument.AnnotatedNotFenced;
import dev.writerfence.internal.audit.AuditReportDocument.Row;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditReportDocumentTest {
  private static final Instant T0 = Instant.parse("2026-12-04T18:00:00.123456Z");

  /** A report whose every field, and every field of its rows, holds a value of its own. */
  private static AuditReportDocument everyField() {
    Row unfenced =
        new Row(
            "aws-s3-v2",
            "putObject",
            "bucket-a",
            "k/1",
            List.of("k/1", "k/2"),
            true,
            "worker-1",
            "com.acme.Job.run(Job.java:42)",
            "io.awspring.cloud.s3.S3Template.upload(S3Template.java:9)",
            "corpus",
            null,
            null,
            null,
            7,
            3,
            T0,
            T0.plusSeconds(5));
    Row fenced =
        new Row(
            "gcs",
            "create",
            "bucket-b",
            "o/1",
            List.of("o/1"),
            true,
            "main",
            "com.acme.Sync.put(Sync.java:7)",
            "com.acme.storage.Store.put(Store.java:3)",
            "uploads",
            "uploads",
            "sync@host:12",
            "com.acme.Sync.run(String)",
            2,
            1,
            T0.plusSeconds(1),
            T0.plusSeconds(9));
    return new AuditReportDocument(
        "0.1.0-SNAPSHOT",
        "enforce",
        T0.plusSeconds(60),
        4242,
        true,
        List.of(unfenced),
        7,
        List.of(fenced),
        List.of(
            new AnnotatedNotFenced(
                "com.acme.Job.run()", "not woven", "com.acme.Job.run(Job.java:40)")));
  }

  @Test
  void everyFieldWrittenIsReadBack() throws Exception {
    AuditReportDocument written = everyField();
    assertEveryComponentSet(written);
    assertEveryComponentSet(
        written.unfencedWrites().get(0), "fenceName", "holderLabel", "fencedBy");
    assertEveryComponentSet(written.fencedWrites().get(0));
    assertEveryComponentSet(written.annotatedNotFenced().get(0));

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    written.write(out);
    AuditReportDocument read =
        AuditReportDocument.read(new ByteArrayInputStream(out.toByteArray()), "report");

    assertThat(read).isEqualTo(written);
    assertThat(read.fencedWrites().get(0)).isEqualTo(written.fencedWrites().get(0));
    assertThat(read.unfencedWrites().get(0)).isEqualTo(written.unfencedWrites().get(0));
    // An unfenced row carries no hold fields at all (the shape the agent has always written).
    assertThat(out.toString(StandardCharsets.UTF_8)).containsOnlyOnce("\"fence_name\"");
  }

  @Test
  void aReportOfAnOlderAgentReadsWithWhatItHas() throws Exception {
    String old =
        """
        {"mode":"log","unfenced_writes":[{"client":"aws-s3-v2","operation":"putObject",
         "bucket":"b","key":"k","count":2,"extra":{"nested":[1,2]}}],"later_field":[true]}
        """;
    AuditReportDocument read =
        AuditReportDocument.read(
            new ByteArrayInputStream(old.getBytes(StandardCharsets.UTF_8)), "old.json");

    assertThat(read.mode()).isEqualTo("log");
    assertThat(read.agent()).isNull();
    assertThat(read.fencedWrites()).isEmpty();
    Row row = read.unfencedWrites().get(0);
    assertThat(row.key()).isEqualTo("k");
    assertThat(row.count()).isEqualTo(2);
    assertThat(row.keys()).isEmpty();
    assertThat(row.firstSeen()).isNull();
  }

  @Test
  void jsonThatIsNoReportIsNamed() {
    assertThatThrownBy(
            () ->
                AuditReportDocument.read(
                    new ByteArrayInputStream("{\"writes\":[]}".getBytes(StandardCharsets.UTF_8)),
                    "other.json"))
        .hasMessage("other.json is not an audit report: no unfenced_writes array");
  }

  /** Guards the round trip against a component added later and left out of {@link #everyField}. */
  private static void assertEveryComponentSet(Record record, String... unsetOnPurpose)
      throws Exception {
    for (RecordComponent c : record.getClass().getRecordComponents()) {
      if (List.of(unsetOnPurpose).contains(c.getName())) {
        continue;
      }
      Object value = c.getAccessor().invoke(record);
      assertThat(value).as(c.getName()).isNotNull();
      assertThat(value).as(c.getName()).isNotIn(0L, 0, false, "");
      if (value instanceof Collection<?> collection) {
        assertThat(collection).as(c.getName()).isNotEmpty();
      }
    }
  }
}
