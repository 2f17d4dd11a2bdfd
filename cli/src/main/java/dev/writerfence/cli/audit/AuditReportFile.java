package dev.writerfence.cli.audit;

import dev.writerfence.internal.audit.AuditReportDocument;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The agent's JSON audit report ({@code audit.report}) as the command line shows it: read through
 * {@link AuditReportDocument}, the one shape the agent writes, into one row per call site of the
 * unfenced writes and (with {@code audit.map}) one per call site and hold of the fenced ones.
 *
 * @param mode the agent's audit mode, {@code log} or {@code enforce}
 * @param writes the unfenced writes, one row per call site, in the report's order
 * @param fenced the fenced writes, one row per call site and hold; empty without {@code audit.map}
 * @param annotatedNotFenced each {@code @WriterFenced} method that wrote with no fence held, as
 *     {@code method: cause}
 * @param map whether the agent recorded fenced writes too ({@code audit.map}); without it an empty
 *     report cannot tell "no write" from "every write fenced"
 */
public record AuditReportFile(
    String mode,
    List<UnfencedWriteRow> writes,
    List<FencedWriteRow> fenced,
    List<String> annotatedNotFenced,
    boolean map) {
  /**
   * @param file a report the agent wrote
   * @return its contents
   * @throws IOException when the file cannot be read or is not such a report
   */
  public static AuditReportFile read(Path file) throws IOException {
    AuditReportDocument report = AuditReportDocument.read(file);
    List<UnfencedWriteRow> rows = new ArrayList<>();
    for (AuditReportDocument.Row w : report.unfencedWrites()) {
      rows.add(
          new UnfencedWriteRow(
              w.client(),
              w.operation(),
              w.bucket(),
              w.key(),
              w.callSite(),
              w.thread(),
              w.count(),
              w.refused(),
              keys(w),
              w.moreKeys(),
              w.libraryCall()));
    }
    List<FencedWriteRow> fenced = new ArrayList<>();
    for (AuditReportDocument.Row w : report.fencedWrites()) {
      fenced.add(
          new FencedWriteRow(
              w.client(),
              w.operation(),
              w.bucket(),
              w.callSite(),
              w.libraryCall(),
              w.fenceName(),
              w.holderLabel(),
              w.count(),
              keys(w),
              w.moreKeys(),
              w.fencedBy()));
    }
    List<String> annotated = new ArrayList<>();
    for (AuditReportDocument.AnnotatedNotFenced a : report.annotatedNotFenced()) {
      annotated.add(a.method() + ": " + a.cause());
    }
    return new AuditReportFile(
        report.mode(),
        List.copyOf(rows),
        List.copyOf(fenced),
        List.copyOf(annotated),
        report.map());
  }

  /** The sample of keys; a report of an older agent has none, only {@code key}. */
  private static List<String> keys(AuditReportDocument.Row row) {
    if (row.keys().isEmpty() && row.key() != null) {
      return List.of(row.key());
    }
    return row.keys();
  }

  /**
   * @return the unfenced writes, all call sites together
   */
  public long total() {
    return writes.stream().mapToLong(UnfencedWriteRow::count).sum();
  }

  /**
   * @return the writes enforce mode refused, all call sites together
   */
  public long refused() {
    return writes.stream().mapToLong(UnfencedWriteRow::refused).sum();
  }
}
