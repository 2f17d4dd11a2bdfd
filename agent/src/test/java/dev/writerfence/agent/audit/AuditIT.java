package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.example.audit.MixedWriterApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit end to end: {@link MixedWriterApp} in its own JVM with the real agent jar, writing to
 * S3Proxy on 127.0.0.1 inside and outside a fence held in the embedded PostgreSQL.
 */
class AuditIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CLIENT = "aws-s3-v2";

  /** Operation of each unfenced write of the mixed app, by key. */
  private static final Map<String, String> UNFENCED =
      Map.of(
          "unfenced/sync", "putObject",
          "unfenced/async", "putObject",
          "unfenced/transfer", "uploadFile",
          "unfenced/delegating", "putObject",
          "unfenced/cross-region", "putObject",
          "unfenced/self-invoked", "putObject");

  /** Method of the call site of each unfenced write, by key. */
  private static final Map<String, String> CALL_SITES =
      Map.of(
          "unfenced/sync", "MixedWriterApp.unfencedSync(",
          "unfenced/async", "MixedWriterApp.unfencedAsync(",
          "unfenced/transfer", "MixedWriterApp.unfencedTransfer(",
          "unfenced/delegating", "MixedWriterApp.unfencedDelegating(",
          "unfenced/cross-region", "MixedWriterApp.unfencedCrossRegion(",
          "unfenced/self-invoked", "MixedWriterApp$SelfInvokingJob.writeFenced(");

  private static S3Server s3;
  private static EmbeddedDatabase db;
  private static LogRun logRun;
  private static AssertionError logRunFailure;

  @TempDir static Path dir;

  /** The mixed app in log mode, run once for the tests that read its reports. */
  private record LogRun(AuditApp app, String bucket, JsonNode atExit, JsonNode throughJmx) {}

  @BeforeAll
  static void start() throws Exception {
    db = EmbeddedDatabase.get();
    s3 = new S3Server();
  }

  @AfterAll
  static void stop() throws Exception {
    if (s3 != null) {
      s3.close();
    }
  }

  @Test
  void C22_auditListsExactlyTheUnfencedWrites() throws Exception {
    LogRun run = logRun();

    for (String key : MixedWriterApp.FENCED_KEYS) {
      assertThat(run.app().output()).contains("wrote " + key);
    }
    for (String key : MixedWriterApp.UNFENCED_KEYS) {
      assertThat(run.app().output()).contains("wrote " + key);
    }
    List<JsonNode> writes = entries(run.atExit());
    assertThat(writes)
        .extracting(
            w -> w.get("client").asText(),
            w -> w.get("operation").asText(),
            w -> w.get("bucket").asText(),
            w -> w.get("key").asText(),
            w -> w.get("count").asLong())
        .containsExactlyInAnyOrderElementsOf(
            UNFENCED.entrySet().stream()
                .map(e -> tuple(CLIENT, e.getValue(), run.bucket(), e.getKey(), 1L))
                .toList());
    for (JsonNode w : writes) {
      assertThat(w.get("call_site").asText())
          .startsWith("org.example.audit." + CALL_SITES.get(w.get("key").asText()))
          .contains("MixedWriterApp.java:");
      assertThat(w.get("thread").asText()).isEqualTo("main");
      assertThat(w.get("refused").asLong()).isZero();
    }
    assertThat(run.atExit().get("total_unfenced_writes").asLong()).isEqualTo(UNFENCED.size());
    assertThat(run.atExit().get("mode").asText()).isEqualTo("log");
    assertThat(run.app().errors())
        .contains("audit (log): " + UNFENCED.size() + " unfenced writes at " + UNFENCED.size());
  }

  @Test
  void C22_enforceRefusesTheUnfencedWritesBeforeTheObjectExists() throws Exception {
    String bucket = FenceNames.random("enforce").toLowerCase(java.util.Locale.ROOT);
    s3.createBucket(bucket);
    Path report = dir.resolve("enforce.json");
    AuditApp app =
        AuditApp.run(
            List.of("audit.mode=enforce", "audit.report=" + report),
            s3.endpoint().toString(),
            db.jdbcUrl(),
            FenceNames.random("audit"),
            bucket,
            "mixed",
            dir.resolve("enforce-jmx.json").toString());

    for (String key : MixedWriterApp.UNFENCED_KEYS) {
      assertThat(app.output())
          .anyMatch(l -> l.startsWith("refused " + key + " org.example.audit."));
      assertThat(s3.exists(bucket, key)).as(key).isFalse();
    }
    for (String key : MixedWriterApp.FENCED_KEYS) {
      assertThat(app.output()).contains("wrote " + key);
      assertThat(s3.exists(bucket, key)).as(key).isTrue();
    }
    // The fenced transfer went out in parts, on the SDK's threads, and none of them was refused.
    assertThat(s3.eTag(bucket, "fenced/transfer")).as("multipart ETag").contains("-2");
    assertThat(entries(JSON.readTree(report.toFile())))
        .extracting(w -> w.get("key").asText(), w -> w.get("refused").asLong())
        .containsExactlyInAnyOrderElementsOf(
            UNFENCED.keySet().stream().map(k -> tuple(k, 1L)).toList());
  }

  @Test
  void C16_holderWhoseLeaseRanOutHasItsNextWriteRefusedInEnforceMode() throws Exception {
    String bucket = FenceNames.random("lost").toLowerCase(java.util.Locale.ROOT);
    s3.createBucket(bucket);
    AuditApp app =
        AuditApp.run(
            List.of("audit.mode=enforce"),
            s3.endpoint().toString(),
            db.jdbcUrl(),
            FenceNames.random("audit-lost"),
            bucket,
            "lost");

    assertThat(app.output()).contains("wrote lost/before", "lease current true, valid false");
    assertThat(app.output())
        .anyMatch(l -> l.startsWith("refused lost/after org.example.audit.MixedWriterApp"));
    assertThat(s3.exists(bucket, "lost/before")).isTrue();
    assertThat(s3.exists(bucket, "lost/after")).isFalse();
  }

  @Test
  void C23_selfInvokedFencedMethodIsReportedNamingClassAndMethod() throws Exception {
    LogRun run = logRun();

    assertThat(entries(run.atExit()))
        .filteredOn(w -> w.get("key").asText().equals("unfenced/self-invoked"))
        .singleElement()
        .satisfies(
            w ->
                assertThat(w.get("call_site").asText())
                    .startsWith("org.example.audit.MixedWriterApp$SelfInvokingJob.writeFenced("));
  }

  @Test
  void reportThroughJmxListsTheSameWritesAsTheReportAtExit() throws Exception {
    LogRun run = logRun();

    assertThat(run.app().output()).anyMatch(l -> l.startsWith("jmx-report "));
    assertThat(keysAndSites(run.throughJmx())).isEqualTo(keysAndSites(run.atExit()));
    assertThat(run.throughJmx().get("pid").asLong()).isEqualTo(run.atExit().get("pid").asLong());
  }

  private static synchronized LogRun logRun() throws Exception {
    if (logRunFailure != null) {
      throw logRunFailure; // one failed run is reported by every test that reads it
    }
    if (logRun == null) {
      String bucket = FenceNames.random("log").toLowerCase(java.util.Locale.ROOT);
      s3.createBucket(bucket);
      Path report = dir.resolve("log.json");
      Path jmx = dir.resolve("log-jmx.json");
      try {
        AuditApp app =
            AuditApp.run(
                List.of("audit.mode=log", "audit.report=" + report),
                s3.endpoint().toString(),
                db.jdbcUrl(),
                FenceNames.random("audit"),
                bucket,
                "mixed",
                jmx.toString());
        logRun = new LogRun(app, bucket, read(report), read(jmx));
      } catch (AssertionError e) {
        logRunFailure = e;
        throw e;
      }
    }
    return logRun;
  }

  private static JsonNode read(Path file) throws IOException {
    assertThat(file).exists();
    return JSON.readTree(Files.readString(file));
  }

  private static List<JsonNode> entries(JsonNode report) {
    List<JsonNode> list = new ArrayList<>();
    report.get("unfenced_writes").forEach(list::add);
    return list;
  }

  private static List<String> keysAndSites(JsonNode report) {
    return entries(report).stream()
        .map(w -> w.get("key").asText() + " " + w.get("call_site").asText())
        .sorted()
        .toList();
  }
}
