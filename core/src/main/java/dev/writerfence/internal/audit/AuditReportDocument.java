package dev.writerfence.internal.audit;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JSON report of the agent's audit ({@code audit.report}), the one shape the agent writes and
 * the command line's {@code audit} reads: every field name is here only. Written with Jackson's
 * streaming API (all the agent carries), read leniently: a field a report lacks (one of an older
 * agent) is {@code null}, 0, {@code false} or empty, and a field it has beyond these is skipped.
 *
 * <p>The file is one object: {@code agent}, {@code mode}, {@code written_at}, {@code pid}, {@code
 * map}, {@code unfenced_writes} (an array of {@link Row}), {@code total_unfenced_writes}, {@code
 * fenced_writes} (rows of the same shape with the hold's fields) and {@code annotated_not_fenced}
 * (an array of {@link AnnotatedNotFenced}).
 *
 * @param agent the agent's version; {@code null} when unknown
 * @param mode the audit mode in lower case, {@code log} or {@code enforce}
 * @param writtenAt when the report was written; {@code null} when unknown
 * @param pid the process id of the JVM that wrote it
 * @param map whether fenced writes were recorded too ({@code audit.map})
 * @param unfencedWrites one row per call site, sorted by client, operation and call site; never
 *     {@code null}
 * @param totalUnfencedWrites the unfenced writes counted, all rows together
 * @param fencedWrites one row per call site, hold and taker; empty without {@code audit.map}; never
 *     {@code null}
 * @param annotatedNotFenced each {@code @WriterFenced} method that wrote with no fence held; never
 *     {@code null}
 */
public record AuditReportDocument(
    String agent,
    String mode,
    Instant writtenAt,
    long pid,
    boolean map,
    List<Row> unfencedWrites,
    long totalUnfencedWrites,
    List<Row> fencedWrites,
    List<AnnotatedNotFenced> annotatedNotFenced) {
  private static final JsonFactory JSON = new JsonFactory();

  /** Copies the lists; {@code null} lists become empty. */
  public AuditReportDocument {
    unfencedWrites = unfencedWrites == null ? List.of() : List.copyOf(unfencedWrites);
    fencedWrites = fencedWrites == null ? List.of() : List.copyOf(fencedWrites);
    annotatedNotFenced = annotatedNotFenced == null ? List.of() : List.copyOf(annotatedNotFenced);
  }

  /**
   * The writes of one call site (and, for a fenced row, one hold and taker).
   *
   * @param client the storage client id, such as {@code aws-s3-v2}
   * @param operation the client operation, such as {@code putObject}
   * @param bucket the bucket (or volume); {@code null} when unknown
   * @param key the key of the first write; {@code null} when unknown
   * @param keys up to five distinct keys written there, in the order first written; never {@code
   *     null}
   * @param moreKeys whether more distinct keys were written than {@code keys} holds
   * @param thread the name of the thread of the first write
   * @param callSite the first application frame, such as {@code com.acme.Job.run(Job.java:42)}
   * @param libraryCall the wrapper library's frame the call site called; {@code null} when none
   * @param requiredFence the fence name a write there had to hold; {@code null} for any
   * @param fenceName the fence name the writes held; {@code null} for an unfenced row (then the
   *     three hold fields are not written)
   * @param holderLabel that hold's holder label; {@code null} when none
   * @param fencedBy who took the hold; {@code null} when unknown
   * @param count how many writes
   * @param refused how many of them enforce mode refused
   * @param firstSeen when the first was seen; {@code null} when unknown
   * @param lastSeen when the last was seen; {@code null} when unknown
   */
  public record Row(
      String client,
      String operation,
      String bucket,
      String key,
      List<String> keys,
      boolean moreKeys,
      String thread,
      String callSite,
      String libraryCall,
      String requiredFence,
      String fenceName,
      String holderLabel,
      String fencedBy,
      long count,
      long refused,
      Instant firstSeen,
      Instant lastSeen) {
    /** Copies the keys; {@code null} becomes empty. */
    public Row {
      keys = keys == null ? List.of() : List.copyOf(keys);
    }

    /**
     * @return whether the writes held a fence
     */
    public boolean isFenced() {
      return fenceName != null;
    }
  }

  /**
   * A {@code @WriterFenced} method that wrote with no fence held.
   *
   * @param method the method
   * @param cause why it held none
   * @param callSite where it wrote
   */
  public record AnnotatedNotFenced(String method, String cause, String callSite) {}

  /**
   * Writes this report as pretty-printed UTF-8 JSON; the stream is left open.
   *
   * @param out where to write
   * @throws IOException when writing fails
   */
  public void write(OutputStream out) throws IOException {
    try (JsonGenerator json = JSON.createGenerator(out, JsonEncoding.UTF8)) {
      json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
      json.useDefaultPrettyPrinter();
      json.writeStartObject();
      json.writeStringField("agent", agent);
      json.writeStringField("mode", mode);
      json.writeStringField("written_at", text(writtenAt));
      json.writeNumberField("pid", pid);
      json.writeBooleanField("map", map);
      writeRows(json, "unfenced_writes", unfencedWrites);
      json.writeNumberField("total_unfenced_writes", totalUnfencedWrites);
      writeRows(json, "fenced_writes", fencedWrites);
      json.writeArrayFieldStart("annotated_not_fenced");
      for (AnnotatedNotFenced a : annotatedNotFenced) {
        json.writeStartObject();
        json.writeStringField("method", a.method());
        json.writeStringField("cause", a.cause());
        json.writeStringField("call_site", a.callSite());
        json.writeEndObject();
      }
      json.writeEndArray();
      json.writeEndObject();
    }
  }

  private static void writeRows(JsonGenerator json, String field, List<Row> rows)
      throws IOException {
    json.writeArrayFieldStart(field);
    for (Row w : rows) {
      json.writeStartObject();
      json.writeStringField("client", w.client());
      json.writeStringField("operation", w.operation());
      json.writeStringField("bucket", w.bucket());
      json.writeStringField("key", w.key());
      json.writeArrayFieldStart("keys");
      for (String k : w.keys()) {
        json.writeString(k);
      }
      json.writeEndArray();
      json.writeBooleanField("more_keys", w.moreKeys());
      json.writeStringField("thread", w.thread());
      json.writeStringField("call_site", w.callSite());
      json.writeStringField("library_call", w.libraryCall());
      json.writeStringField("required_fence", w.requiredFence());
      if (w.isFenced()) {
        json.writeStringField("fence_name", w.fenceName());
        json.writeStringField("holder_label", w.holderLabel());
        json.writeStringField("fenced_by", w.fencedBy());
      }
      json.writeNumberField("count", w.count());
      json.writeNumberField("refused", w.refused());
      json.writeStringField("first_seen", text(w.firstSeen()));
      json.writeStringField("last_seen", text(w.lastSeen()));
      json.writeEndObject();
    }
    json.writeEndArray();
  }

  /**
   * @param file a report the agent wrote
   * @return its contents
   * @throws IOException when the file cannot be read, is not JSON, or is no audit report (it has no
   *     {@code unfenced_writes} array); the message names the file
   */
  public static AuditReportDocument read(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      return read(in, file.toString());
    }
  }

  /**
   * @param in the report's JSON; left open
   * @param name what to call it in messages, such as its file
   * @return its contents
   * @throws IOException when it cannot be read, is not JSON, or is no audit report
   */
  public static AuditReportDocument read(InputStream in, String name) throws IOException {
    Object root;
    try (JsonParser json = JSON.createParser(in)) {
      json.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
      json.nextToken();
      root = value(json);
    }
    if (!(root instanceof Map<?, ?> fields) || !(fields.get("unfenced_writes") instanceof List)) {
      throw new IOException(name + " is not an audit report: no unfenced_writes array");
    }
    Fields report = new Fields(fields, name);
    return new AuditReportDocument(
        report.text("agent"),
        report.text("mode"),
        report.instant("written_at"),
        report.number("pid"),
        report.flag("map"),
        report.rows("unfenced_writes"),
        report.number("total_unfenced_writes"),
        report.rows("fenced_writes"),
        report.objects("annotated_not_fenced").stream()
            .map(
                a -> new AnnotatedNotFenced(a.text("method"), a.text("cause"), a.text("call_site")))
            .toList());
  }

  private static String text(Instant instant) {
    return instant == null ? null : instant.toString();
  }

  /** The value at the parser's current token: a map, a list, text, a number, a flag or null. */
  private static Object value(JsonParser json) throws IOException {
    JsonToken token = json.currentToken();
    if (token == null) {
      return null;
    }
    switch (token) {
      case START_OBJECT -> {
        Map<String, Object> fields = new LinkedHashMap<>();
        while (json.nextToken() == JsonToken.FIELD_NAME) {
          String field = json.currentName();
          json.nextToken();
          fields.put(field, value(json));
        }
        return fields;
      }
      case START_ARRAY -> {
        List<Object> items = new ArrayList<>();
        while (json.nextToken() != JsonToken.END_ARRAY) {
          items.add(value(json));
        }
        return items;
      }
      case VALUE_STRING -> {
        return json.getText();
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        return json.getLongValue();
      }
      case VALUE_TRUE -> {
        return Boolean.TRUE;
      }
      case VALUE_FALSE -> {
        return Boolean.FALSE;
      }
      default -> {
        return null;
      }
    }
  }

  /** One JSON object of a report, read leniently. */
  private record Fields(Map<?, ?> map, String name) {
    String text(String field) {
      Object v = map.get(field);
      return v == null || v instanceof Map || v instanceof List ? null : v.toString();
    }

    long number(String field) {
      return map.get(field) instanceof Long n ? n : 0;
    }

    boolean flag(String field) {
      return Boolean.TRUE.equals(map.get(field));
    }

    Instant instant(String field) throws IOException {
      String v = text(field);
      try {
        return v == null ? null : Instant.parse(v);
      } catch (DateTimeParseException e) {
        throw new IOException(name + ": " + field + " '" + v + "' is not an ISO-8601 instant", e);
      }
    }

    List<String> texts(String field) {
      List<String> texts = new ArrayList<>();
      if (map.get(field) instanceof List<?> items) {
        for (Object item : items) {
          if (item != null && !(item instanceof Map) && !(item instanceof List)) {
            texts.add(item.toString());
          }
        }
      }
      return texts;
    }

    List<Fields> objects(String field) {
      List<Fields> objects = new ArrayList<>();
      if (map.get(field) instanceof List<?> items) {
        for (Object item : items) {
          if (item instanceof Map<?, ?> fields) {
            objects.add(new Fields(fields, name));
          }
        }
      }
      return objects;
    }

    List<Row> rows(String field) throws IOException {
      List<Row> rows = new ArrayList<>();
      for (Fields w : objects(field)) {
        rows.add(
            new Row(
                w.text("client"),
                w.text("operation"),
                w.text("bucket"),
                w.text("key"),
                w.texts("keys"),
                w.flag("more_keys"),
                w.text("thread"),
                w.text("call_site"),
                w.text("library_call"),
                w.text("required_fence"),
                w.text("fence_name"),
                w.text("holder_label"),
                w.text("fenced_by"),
                w.number("count"),
                w.number("refused"),
                w.instant("first_seen"),
                w.instant("last_seen")));
      }
      return rows;
    }
  }
}
