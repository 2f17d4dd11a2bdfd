package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.example.handoff.HandOffApp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * C33: a fenced method (the agent's {@code fence.methods}, and {@code @WriterFenced} woven by the
 * agent) puts 8 objects through each hand-off kind under audit enforce, in a JVM of its own with
 * the real agent, S3Proxy and PostgreSQL. While the method holds, the tasks' writes are fenced and
 * stamped with the parent's fencing token (read back from S3Proxy); a task that outlives the method
 * is refused and listed; a task that a thread without a hold submits to a pool whose worker a
 * holder started is refused (no worker inherits a hold). With the writer map on, every fenced write
 * of a task names the fenced method that took the hold it was carried: the hold keeps its taker.
 */
class HandOffAuditIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The kinds every JDK has (Java 17). */
  private static final List<String> PLATFORM_KINDS =
      List.of(
          "pool-submit",
          "pool-nested",
          "pool-execute",
          "invoke-all",
          "scheduled",
          "supply-async",
          "supply-async-executor",
          "parallel-stream",
          "threads");

  private static final List<String> VIRTUAL_KINDS = List.of("virtual-threads", "virtual-executor");

  @TempDir Path dir;

  @Test
  void C33_tasksOfAMethodFencedByFenceMethodsWriteInsideItsHold() throws Exception {
    expectFencedHandOffs(ForkedJvm.javaBinary(), "methods", PLATFORM_KINDS, List.of());
  }

  @Test
  void C33_tasksOfAnAnnotatedMethodWriteInsideItsHold() throws Exception {
    expectFencedHandOffs(ForkedJvm.javaBinary(), "annotation", PLATFORM_KINDS, List.of());
  }

  @Test
  void C33_virtualThreadsWriteInsideTheHoldOnTheNewestJdk() throws Exception {
    Optional<String> newest = ForkedJvm.newestJdk();
    assumeTrue(
        newest.isPresent(),
        "no JDK 21+ here (set WRITER_FENCE_NEWEST_JDK): virtual threads cannot be tried");
    List<String> kinds = new ArrayList<>(PLATFORM_KINDS);
    kinds.addAll(VIRTUAL_KINDS);
    expectFencedHandOffs(newest.get(), "methods", kinds, List.of());
    expectFencedHandOffs(newest.get(), "annotation", kinds, List.of());
  }

  @Test
  void withPropagationOffTasksTheAppWrapsStillWriteInsideTheHold() throws Exception {
    expectFencedHandOffs(
        ForkedJvm.javaBinary(),
        "explicit",
        List.of("pool-submit", "invoke-all", "supply-async-executor", "threads"),
        List.of("agent.propagation=false"));
  }

  @Test
  void withPropagationOffUnwrappedTasksAreRefused() throws Exception {
    Run run =
        run(
            ForkedJvm.javaBinary(),
            "methods",
            List.of("pool-submit", "threads"),
            List.of("agent.propagation=false"));
    assertThat(run.lines())
        .as(run.describe())
        .anyMatch(l -> l.matches("kind pool-submit parent \\d+ refused 8"))
        .anyMatch(l -> l.matches("kind threads parent \\d+ refused 8"));
  }

  private void expectFencedHandOffs(
      String java, String how, List<String> kinds, List<String> settings) throws Exception {
    Run run = run(java, how, kinds, settings);
    long previous = -1;
    for (int k = 0; k < kinds.size(); k++) {
      // Each kind runs in a fenced call of its own, whose token its objects carry.
      String kind = kinds.get(k);
      String line =
          run.lines().stream()
              .filter(l -> l.startsWith("kind " + kind + " "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no line for " + kind + ": " + run.describe()));
      assertThat(line).as(run.describe()).matches("kind " + kind + " parent [1-9]\\d* refused 0");
      String parent = line.split(" ")[3];
      if (previous > 0) {
        // One acquire per kind: no task acquired on its own (pool-nested's joined the hold).
        assertThat(Long.parseLong(parent)).as(run.describe()).isEqualTo(previous + 1);
      }
      previous = Long.parseLong(parent);
      for (int i = 0; i < 8; i++) {
        String key = kind + "/" + i;
        assertThat(run.s3Metadata().get(key))
            .as("fencing token stamped on %s", key)
            .isEqualTo(parent);
      }
    }
    // Rows are per call site, hold and taker: the kinds' writes share rows, each naming upload.
    assertThat(run.fencedBy())
        .as(
            "who took the holds the tasks wrote in (carried, and joined by put): %s",
            run.describe())
        .filteredOn(row -> kinds.stream().anyMatch(kind -> row.get(1).startsWith(kind + "/")))
        .isNotEmpty()
        .allSatisfy(
            row ->
                assertThat(row.get(0))
                    .isEqualTo(
                        "org.example.handoff."
                            + (how.equals("annotation") ? "AnnotatedUploads" : "Uploads")
                            + ".upload(String, String)"));
    assertThat(run.lines()).as(run.describe()).contains("outlived refused true");
    if (!how.equals("explicit")) {
      assertThat(run.lines())
          .as(run.describe())
          .contains("unrelated pool -1 true fork-join -1 true");
    }
    // Only what ran outside every hold is listed: the late task and the unrelated ones.
    assertThat(run.listedKeys())
        .as(run.describe())
        .contains("outlive/late")
        .noneMatch(k -> kinds.stream().anyMatch(kind -> k.startsWith(kind + "/")));
  }

  private Run run(String java, String how, List<String> kinds, List<String> settings)
      throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    String fenceName = FenceNames.random("handoff");
    String bucket = FenceNames.random("handoff").toLowerCase(Locale.ROOT);
    Path report = Files.createTempFile(dir, "handoff-", ".json");
    Files.delete(report);
    try (S3Server s3 = new S3Server()) {
      s3.createBucket(bucket);
      List<String> jvm = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
      jvm.add("-javaagent:" + AuditApp.AGENT_JAR);
      jvm.add("-Dwriter-fence.audit.mode=enforce");
      jvm.add("-Dwriter-fence.audit.report=" + report);
      jvm.add("-Dwriter-fence.audit.map=true");
      jvm.add("-Dwriter-fence.datasource.url=" + db.jdbcUrl());
      jvm.add("-Dwriter-fence.datasource.username=postgres");
      if (!how.equals("annotation")) {
        jvm.add(
            "-Dwriter-fence.fence.methods=org.example.handoff.Uploads#*=" + fenceName + "/handoff");
      }
      for (String s : settings) {
        jvm.add("-Dwriter-fence." + s);
      }
      try (ForkedJvm app =
          ForkedJvm.startOn(
              java,
              jvm,
              AuditApp.applicationClassPath(),
              HandOffApp.class.getName(),
              s3.endpoint().toString(),
              fenceName,
              bucket,
              how,
              String.join(",", kinds))) {
        app.awaitLine("done", TIMEOUT);
        assertThat(app.awaitExit(TIMEOUT)).as(app.stderr()).isZero();
        java.util.Map<String, String> stamps = new java.util.HashMap<>();
        for (String kind : kinds) {
          for (int i = 0; i < 8; i++) {
            String key = kind + "/" + i;
            if (s3.exists(bucket, key)) {
              stamps.put(key, s3.metadata(bucket, key).get("fencing-token"));
            }
          }
        }
        List<String> listed = new ArrayList<>();
        JsonNode written = JSON.readTree(report.toFile());
        ReportRoundTrip.assertReadsEveryField(report);
        written.get("unfenced_writes").forEach((JsonNode w) -> listed.add(w.get("key").asText()));
        // Each fenced row's taker, with each key of its sample.
        List<List<String>> fencedBy = new ArrayList<>();
        for (JsonNode w : written.get("fenced_writes")) {
          for (JsonNode key : w.get("keys")) {
            fencedBy.add(List.of(w.path("fenced_by").asText(), key.asText()));
          }
        }
        return new Run(List.copyOf(app.output()), stamps, listed, fencedBy, app.stderr());
      }
    }
  }

  private record Run(
      List<String> lines,
      java.util.Map<String, String> s3Metadata,
      List<String> listedKeys,
      List<List<String>> fencedBy,
      String stderr) {
    String describe() {
      return "output " + lines + "\nstderr " + stderr;
    }
  }
}
