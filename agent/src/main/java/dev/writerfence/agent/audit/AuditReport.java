package dev.writerfence.agent.audit;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.writerfence.agent.AgentLog;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * The audit's outputs: the JSON report file and the one-paragraph summary logged at exit.
 *
 * <p>The report is one object: {@code agent} (version), {@code mode}, {@code written_at}
 * (ISO-8601), {@code pid}, {@code unfenced_writes} (an array, one object per call site, sorted by
 * client, operation and call site, with {@code client}, {@code operation}, {@code bucket}, {@code
 * key} (both {@code null} when unknown), {@code thread}, {@code call_site}, {@code required_fence}
 * ({@code null} for any), {@code count}, {@code refused}, {@code first_seen}, {@code last_seen},
 * {@code keys} (up to five distinct keys written there), {@code more_keys}, {@code library_call}
 * (the wrapper library's frame the call site called, or {@code null})), {@code
 * total_unfenced_writes}, {@code map} ({@code audit.map}) and {@code fenced_writes} (rows of the
 * same shape with {@code fence_name}, {@code holder_label} and {@code fenced_by} (who took the
 * hold: the fenced method, or the Java API's caller; {@code null} when the copy of core that took
 * it does not tell), one per call site, hold and taker; empty without {@code audit.map}), and
 * {@code annotated_not_fenced} ({@code method}, {@code cause}, {@code call_site}: each
 * {@code @WriterFenced} method that wrote with no fence held).
 */
final class AuditReport {
  private static final JsonFactory JSON = new JsonFactory();

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
      writeFile(recorder, file);
    } finally {
      dev.writerfence.bootstrap.AuditGate.exit();
    }
  }

  private static void writeFile(AuditRecorder recorder, Path file) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
    try (OutputStream out = Files.newOutputStream(tmp);
        JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.useDefaultPrettyPrinter();
      write(recorder, json);
    }
    try {
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void write(AuditRecorder recorder, JsonGenerator json) throws IOException {
    List<SiteWrites> writes = recorder.writes();
    long total = 0;
    json.writeStartObject();
    json.writeStringField("agent", AgentLog.version());
    json.writeStringField("mode", recorder.mode().name().toLowerCase(Locale.ROOT));
    json.writeStringField("written_at", Instant.now().toString());
    json.writeNumberField("pid", ProcessHandle.current().pid());
    json.writeBooleanField("map", recorder.maps());
    json.writeArrayFieldStart("unfenced_writes");
    for (SiteWrites w : writes) {
      total += w.count.get();
      writeRow(w, json);
    }
    json.writeEndArray();
    json.writeNumberField("total_unfenced_writes", total);
    json.writeArrayFieldStart("fenced_writes");
    for (SiteWrites w : recorder.fencedWrites()) {
      writeRow(w, json);
    }
    json.writeEndArray();
    json.writeArrayFieldStart("annotated_not_fenced");
    for (UnfencedAnnotatedMethods.Finding f : recorder.annotatedButUnfenced()) {
      json.writeStartObject();
      json.writeStringField("method", f.method());
      json.writeStringField("cause", f.cause());
      json.writeStringField("call_site", f.callSite());
      json.writeEndObject();
    }
    json.writeEndArray();
    json.writeEndObject();
  }

  private static void writeRow(SiteWrites w, JsonGenerator json) throws IOException {
    json.writeStartObject();
    json.writeStringField("client", w.client);
    json.writeStringField("operation", w.operation);
    json.writeStringField("bucket", w.bucket);
    json.writeStringField("key", w.key);
    json.writeArrayFieldStart("keys");
    for (String k : w.keys()) {
      json.writeString(k);
    }
    json.writeEndArray();
    json.writeBooleanField("more_keys", w.moreKeys());
    json.writeStringField("thread", w.thread);
    json.writeStringField("call_site", w.callSite);
    json.writeStringField("library_call", w.libraryCall);
    json.writeStringField("required_fence", w.requiredFence);
    if (w.isFenced()) {
      json.writeStringField("fence_name", w.fenceName);
      json.writeStringField("holder_label", w.holderLabel);
      json.writeStringField("fenced_by", w.fencedBy);
    }
    json.writeNumberField("count", w.count.get());
    json.writeNumberField("refused", w.refused.get());
    json.writeStringField("first_seen", w.firstSeen.toString());
    json.writeStringField("last_seen", w.lastSeen().toString());
    json.writeEndObject();
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
