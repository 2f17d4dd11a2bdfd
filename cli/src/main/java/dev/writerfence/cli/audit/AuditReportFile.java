package dev.writerfence.cli.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the agent's JSON audit report ({@code audit.report}): an object whose {@code
 * unfenced_writes} array holds one object per call site, and its {@code fenced_writes} array (with
 * {@code audit.map}) one per call site and hold (see agent/README.md).
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
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * @param file a report the agent wrote
   * @return its contents
   * @throws IOException when the file cannot be read or is not such a report
   */
  public static AuditReportFile read(Path file) throws IOException {
    JsonNode root = JSON.readTree(file.toFile());
    JsonNode writes = root == null ? null : root.get("unfenced_writes");
    if (writes == null || !writes.isArray()) {
      throw new IOException(file + " is not an audit report: no unfenced_writes array");
    }
    List<UnfencedWriteRow> rows = new ArrayList<>();
    for (JsonNode w : writes) {
      rows.add(
          new UnfencedWriteRow(
              text(w, "client"),
              text(w, "operation"),
              text(w, "bucket"),
              text(w, "key"),
              text(w, "call_site"),
              text(w, "thread"),
              w.path("count").asLong(),
              w.path("refused").asLong(),
              keys(w),
              w.path("more_keys").asBoolean(),
              text(w, "library_call")));
    }
    List<FencedWriteRow> fenced = new ArrayList<>();
    for (JsonNode w : root.path("fenced_writes")) {
      fenced.add(
          new FencedWriteRow(
              text(w, "client"),
              text(w, "operation"),
              text(w, "bucket"),
              text(w, "call_site"),
              text(w, "library_call"),
              text(w, "fence_name"),
              text(w, "holder_label"),
              w.path("count").asLong(),
              keys(w),
              w.path("more_keys").asBoolean(),
              text(w, "fenced_by")));
    }
    List<String> annotated = new ArrayList<>();
    for (JsonNode a : root.path("annotated_not_fenced")) {
      annotated.add(text(a, "method") + ": " + text(a, "cause"));
    }
    return new AuditReportFile(
        text(root, "mode"),
        List.copyOf(rows),
        List.copyOf(fenced),
        List.copyOf(annotated),
        root.path("map").asBoolean());
  }

  /** The sample of keys; a report of an older agent has none, only {@code key}. */
  private static List<String> keys(JsonNode row) {
    List<String> keys = new ArrayList<>();
    for (JsonNode k : row.path("keys")) {
      keys.add(k.asText());
    }
    if (keys.isEmpty() && text(row, "key") != null) {
      keys.add(text(row, "key"));
    }
    return List.copyOf(keys);
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

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }
}
