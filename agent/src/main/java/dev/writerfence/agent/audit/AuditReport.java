package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentLog;
import dev.writerfence.internal.audit.AuditReportDocument;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The audit's outputs: the JSON report file ({@link AuditReportDocument}, the shape the command
 * line's {@code audit} reads) and the one-paragraph summary logged at exit.
 */
final class AuditReport {
  private AuditReport() {}

  /**
   * Writes the report atomically (a temporary file in the same directory, then a move), so a reader
   * never sees half a report.
   *
   * @param recorder what was recorded
   * @param file where to write; its directory is created when missing
   * @throws IOException when the file cannot be written
   */
  static void write(AuditRecorder recorder, Path file) throws IOException {
    // The report is the agent's own write, wherever it goes (even under audit.paths, even when a
    // JMX call from an unfenced thread asks for it): never judged.
    dev.writerfence.bootstrap.AuditGate.suspend();
    try {
      writeFile(document(recorder), file);
    } finally {
      dev.writerfence.bootstrap.AuditGate.exit();
    }
  }

  private static void writeFile(AuditReportDocument report, Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp)) {
      report.write(out);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * @param recorder what was recorded
   * @return the report of what it recorded so far
   */
  static AuditReportDocument document(AuditRecorder recorder) {
    List<SiteWrites> writes = recorder.writes();
    long total = writes.stream().mapToLong(w -> w.count.get()).sum();
    return new AuditReportDocument(
        AgentLog.version(),
        recorder.mode().name().toLowerCase(Locale.ROOT),
        Instant.now(),
        ProcessHandle.current().pid(),
        recorder.maps(),
        writes.stream().map(AuditReport::row).toList(),
        total,
        recorder.fencedWrites().stream().map(AuditReport::row).toList(),
        recorder.annotatedButUnfenced().stream()
            .map(
                f ->
                    new AuditReportDocument.AnnotatedNotFenced(f.method(), f.cause(), f.callSite()))
            .toList());
  }

  private static AuditReportDocument.Row row(SiteWrites w) {
    return new AuditReportDocument.Row(
        w.client,
        w.operation,
        w.bucket,
        w.key,
        w.keys(),
        w.moreKeys(),
        w.thread,
        w.callSite,
        w.libraryCall,
        w.requiredFence,
        w.fenceName,
        w.holderLabel,
        w.fencedBy,
        w.count.get(),
        w.refused.get(),
        w.firstSeen,
        w.lastSeen());
  }

  /**
   * @param recorder what was recorded
   * @return the summary: one line with the totals, then one line per call site
   */
  static String summary(AuditRecorder recorder) {
    List<SiteWrites> writes = recorder.writes();
    long total = writes.stream().mapToLong(w -> w.count.get()).sum();
    StringBuilder text =
        new StringBuilder("audit (")
            .append(recorder.mode().name().toLowerCase(Locale.ROOT))
            .append("): ")
            .append(total)
            .append(total == 1 ? " unfenced write" : " unfenced writes")
            .append(" at ")
            .append(writes.size())
            .append(writes.size() == 1 ? " call site" : " call sites")
            .append(" (pid ")
            .append(ProcessHandle.current().pid())
            .append(')');
    for (SiteWrites w : writes) {
      text.append(System.lineSeparator())
          .append("  ")
          .append(w.count.get())
          .append("x ")
          .append(w.client)
          .append(' ')
          .append(w.operation)
          .append(" bucket=")
          .append(w.bucket)
          .append(" key=")
          .append(w.key)
          .append(" at ")
          .append(w.callSite);
      if (w.keys().size() > 1) {
        text.append(" keys=").append(w.keys()).append(w.moreKeys() ? " and more" : "");
      }
      text.append(" [").append(w.thread).append(']');
      if (w.refused.get() > 0) {
        text.append(" refused ").append(w.refused.get());
      }
    }
    for (UnfencedAnnotatedMethods.Finding f : recorder.annotatedButUnfenced()) {
      text.append(System.lineSeparator())
          .append("  annotated but not fenced: @WriterFenced ")
          .append(f.method())
          .append(" (")
          .append(f.cause())
          .append(')');
    }
    return text.toString();
  }
}
