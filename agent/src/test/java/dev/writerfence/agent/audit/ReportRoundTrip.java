package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.internal.audit.AuditReportDocument;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A report the real agent wrote, read through {@link AuditReportDocument} (what the command line's
 * {@code audit} reads) and written again: every field the agent wrote must come back as it was, so
 * no field of the agent's is lost on the reader's side.
 */
final class ReportRoundTrip {
  private static final ObjectMapper JSON = new ObjectMapper();

  private ReportRoundTrip() {}

  /**
   * @param report a report file the agent wrote
   * @return the report as the shared type read it
   */
  static AuditReportDocument assertReadsEveryField(Path report) throws IOException {
    JsonNode written = JSON.readTree(report.toFile());
    AuditReportDocument read = AuditReportDocument.read(report);
    ByteArrayOutputStream again = new ByteArrayOutputStream();
    read.write(again);
    assertThat(JSON.readTree(again.toByteArray()))
        .as("the agent's report read by the shared type and written again")
        .isEqualTo(written);
    return read;
  }
}
