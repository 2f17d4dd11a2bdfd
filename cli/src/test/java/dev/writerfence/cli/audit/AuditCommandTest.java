package dev.writerfence.cli.audit;

import static dev.writerfence.cli.audit.AuditRuns.audit;
import static dev.writerfence.cli.audit.AuditRuns.shell;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.writerfence.cli.Cli;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.example.audited.AuditedApp;
import org.example.audited.Lingering;
import org.example.audited.MappedApp;
import org.example.audited.MultipartApp;
import org.example.audited.SpreadApp;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code writer-fence audit} for real: {@link AuditedApp} forked with the real agent jar
 * (target/agent, copied by the build), writing to S3Proxy on 127.0.0.1 inside and outside a fence
 * held in the embedded PostgreSQL.
 */
class AuditCommandTest {
  private static final String CLIENT = "aws-s3-v2";

  private static AuditRuns runs;
  private static EmbeddedDatabase db;

  @TempDir Path dir;

  @BeforeAll
  static void start() throws Exception {
    db = EmbeddedDatabase.get();
    runs = AuditRuns.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (runs != null) {
      runs.stop();
    }
  }

  @Test
  void C22_auditListsExactlyTheUnfencedWrites() throws Exception {
    String bucket = bucket("log");
    Path report = dir.resolve("reports");

    Cli.Run run = audit(List.of("--report", report.toString()), appCommand(bucket, 0));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(reports(report).writes())
        .extracting(
            UnfencedWriteRow::client,
            UnfencedWriteRow::operation,
            UnfencedWriteRow::bucket,
            UnfencedWriteRow::key,
            UnfencedWriteRow::count,
            UnfencedWriteRow::refused)
        .containsExactlyInAnyOrder(
            tuple(CLIENT, "putObject", bucket, AuditedApp.UNFENCED_PUT, 1L, 0L),
            tuple(CLIENT, "deleteObject", bucket, AuditedApp.UNFENCED_DELETE, 1L, 0L));
    List<String> lines = run.out().lines().toList();
    assertThat(lines)
        .contains(
            "writer-fence audit (log): 2 unfenced writes at 2 call sites; the command exited"
                + " with 0")
        .anySatisfy(
            l ->
                assertThat(l)
                    .startsWith("client")
                    .contains(
                        "operation", "bucket", "key/path", "call site", "via", "thread", "count")
                    .doesNotContain("refused"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(CLIENT, "putObject", bucket, AuditedApp.UNFENCED_PUT, "main")
                    .contains("org.example.audited.AuditedApp.unfencedPut(AuditedApp.java:")
                    .endsWith(" 1"))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains("deleteObject", AuditedApp.UNFENCED_DELETE)
                    .contains("org.example.audited.AuditedApp.unfencedDelete(AuditedApp.java:"))
        .anySatisfy(
            l -> assertThat(l).startsWith("report: " + report.toAbsolutePath() + "/audit-"));
    assertThat(run.out()).doesNotContain(AuditedApp.FENCED);
    assertThat(exists(bucket, AuditedApp.FENCED)).isTrue();
    assertThat(exists(bucket, AuditedApp.UNFENCED_PUT)).isTrue();
  }

  @Test
  void C22_enforceRefusesTheUnfencedWritesAndExitsWithThree() throws Exception {
    String bucket = bucket("enforce");

    Cli.Run run = audit(List.of("--enforce"), appCommand(bucket, 0));

    assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(AuditCommand.REFUSED);
    assertThat(run.out())
        .contains("writer-fence audit (enforce): 2 unfenced writes at 2 call sites, 2 refused;")
        .containsPattern("count +refused")
        .doesNotContain("report: "); // no --report: the temporary report is gone
    assertThat(exists(bucket, AuditedApp.UNFENCED_PUT)).isFalse();
    assertThat(exists(bucket, AuditedApp.FENCED)).isTrue();
  }

  @Test
  void C35_theMapFlagsTwoFenceNamesOnOneBucketAndItsUnfencedWriter() throws Exception {
    // Also names, beside each fenced call site, the method that took the fence.
    String one = bucket("map-one");
    String two = bucket("map-two");
    String fenceA = FenceNames.random("map-a");
    String fenceB = FenceNames.random("map-b");
    Path report = dir.resolve("map");
    String volume = volume();

    Cli.Run run =
        audit(
            List.of("--map", "--report", report.toString()),
            mappedCommand(fenceA, fenceB, one, two, volume));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    WriterMap map = reports(report).map();
    assertThat(map.writers())
        .extracting(
            WriterMap.Writer::bucket,
            w -> w.callSite().replaceAll("\\(.*", ""),
            WriterMap.Writer::fenceName,
            WriterMap.Writer::count,
            WriterMap.Writer::status)
        .containsExactlyInAnyOrder(
            tuple(one, APP + ".ingest", fenceA, 3L, WriterMap.Status.INCONSISTENT),
            tuple(one, APP + ".compact", fenceB, 1L, WriterMap.Status.INCONSISTENT),
            tuple(one, APP + ".sweep", null, 1L, WriterMap.Status.UNFENCED),
            tuple(two, APP + ".archive", fenceA, 1L, WriterMap.Status.FENCED),
            tuple(two, APP + ".viaTemplate", fenceA, 1L, WriterMap.Status.FENCED),
            tuple(two, APP + ".viaTemplate", fenceA, 1L, WriterMap.Status.FENCED),
            tuple(two, APP + ".publish", fenceA, 1L, WriterMap.Status.FENCED),
            tuple(two, APP + ".mirror", fenceA, 1L, WriterMap.Status.FENCED),
            tuple(volume, APP + ".index", fenceA, 2L, WriterMap.Status.FENCED),
            tuple(volume, APP + ".reindex", null, 1L, WriterMap.Status.UNFENCED));
    assertThat(map.writersOf(volume))
        .as("the LMDB environment, audited at lmdbjava's API: its directory is the volume")
        .allSatisfy(w -> assertThat(w.client()).isEqualTo("lmdb"))
        .allSatisfy(w -> assertThat(w.libraryCall()).isNull())
        .satisfiesExactlyInAnyOrder(
            w -> {
              assertThat(w.callSite()).startsWith(APP + ".index(MappedApp.java:");
              assertThat(w.keys()).containsExactly(MappedApp.INDEX_KEYS);
              assertThat(w.holderLabel()).startsWith("index@");
            },
            w -> {
              assertThat(w.callSite()).startsWith(APP + ".reindex(MappedApp.java:");
              assertThat(w.keys()).containsExactly(MappedApp.REINDEX_KEY);
              assertThat(w.holderLabel()).isNull();
            });
    assertThat(map.writers())
        .filteredOn(w -> w.callSite().contains(".viaTemplate("))
        .as("writes through Spring Cloud AWS: the application's line, the wrapper's beside it")
        .satisfiesExactlyInAnyOrder(
            w -> {
              assertThat(w.keys()).containsExactly(MappedApp.TEMPLATE_UPLOAD);
              assertThat(w.libraryCall()).startsWith("io.awspring.cloud.s3.S3Template.upload(");
            },
            w -> {
              assertThat(w.keys()).containsExactly(MappedApp.TEMPLATE_STORE);
              assertThat(w.libraryCall()).startsWith("io.awspring.cloud.s3.S3Template.store(");
            });
    WriterMap.Writer ingest =
        map.writers().stream()
            .filter(w -> w.callSite().contains(".ingest("))
            .findFirst()
            .orElseThrow();
    assertThat(ingest.keys())
        .as("distinct keys of one call site, kept")
        .containsExactly(MappedApp.INGEST_KEYS);
    assertThat(ingest.holderLabel()).startsWith("ingest");
    assertThat(map.writers())
        .filteredOn(w -> w.fenceName() != null && !w.callSite().contains(".publish("))
        .filteredOn(w -> !w.callSite().contains(".mirror("))
        .as(
            "taken through the Java API (fence.run in main, the writes in its lambdas): main's line")
        .hasSize(6)
        .allSatisfy(w -> assertThat(w.fencedBy()).startsWith(APP + ".main(MappedApp.java:"));
    assertThat(map.writers())
        .filteredOn(w -> w.fenceName() == null)
        .allSatisfy(w -> assertThat(w.fencedBy()).isNull());
    assertThat(fencedBy(map, ".publish("))
        .as("fenced by the agent for its @WriterFenced: the method itself")
        .isEqualTo(APP + ".publish(String, S3Client, String)");
    assertThat(fencedBy(map, ".mirror("))
        .as("fenced by the agent's fence.methods entry: the method itself")
        .isEqualTo(APP + ".mirror(String, S3Client, String)");
    assertThat(run.out())
        .as("the printed map shows the taker beside the call site")
        .contains("fenced by")
        .contains(APP + ".publish(String, S3Client, String)")
        .contains(APP + ".main(MappedApp.java:");
    assertThat(run.out())
        .contains("writer map:")
        .contains("bucket " + one + ": INCONSISTENT: writers hold 2 fence names")
        .contains("UNFENCED: 1 writer holds no fence")
        .contains("bucket " + two + ": fenced: every writer holds fence '" + fenceA + "'")
        .contains("bucket " + volume + ": UNFENCED: 1 writer holds no fence");
  }

  @Test
  void C35_failOnExitsWithFourOnlyWhenTheMapHasThatStatus() throws Exception {
    String one = bucket("fail-one");
    String two = bucket("fail-two");
    String fenceA = FenceNames.random("fail-a");
    String fenceB = FenceNames.random("fail-b");

    Cli.Run unfenced =
        audit(List.of("--fail-on", "unfenced"), mappedCommand(fenceA, fenceB, one, two, volume()));
    Cli.Run both =
        audit(
            List.of("--fail-on", "inconsistent,unfenced"),
            mappedCommand(fenceA, fenceB, one, two, volume()));
    Cli.Run bad = Cli.run("audit", "--fail-on", "late", "--", "true");
    Cli.Run empty = Cli.run("audit", "--fail-on", "", "--", "true");

    assertThat(unfenced.exitCode())
        .as(unfenced.err() + unfenced.out())
        .isEqualTo(AuditCommand.MAP_FAILED);
    assertThat(unfenced.out()).contains("writer map:");
    assertThat(unfenced.err()).contains("the writer map has unfenced writers (--fail-on unfenced)");
    assertThat(both.exitCode()).isEqualTo(AuditCommand.MAP_FAILED);
    assertThat(both.err())
        .as("both statuses present: both named")
        .contains(
            "the writer map has inconsistent and unfenced writers"
                + " (--fail-on inconsistent,unfenced)");
    assertThat(bad.exitCode()).isEqualTo(2);
    assertThat(bad.err()).contains("--fail-on 'late' is not allowed: unfenced or inconsistent");
    assertThat(empty.exitCode()).isEqualTo(2);
    assertThat(empty.err()).contains("--fail-on '' is not allowed");
  }

  @Test
  void C35_failOnInconsistentPassesWhenEveryFencedWriterHoldsOneName() throws Exception {
    String bucket = bucket("fail-none");

    // only for --fail-on unfenced.
    Cli.Run run = audit(List.of("--fail-on", "inconsistent"), appCommand(bucket, 0));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out()).contains("bucket " + bucket + ": UNFENCED: 2 writers hold no fence");
  }

  @Test
  void aMultipartUploadThroughTheSyncClientIsOneLogicalWrite() throws Exception {
    String bucket = bucket("multipart");
    Path report = dir.resolve("multipart");

    Cli.Run run =
        audit(
            List.of("--report", report.toString()),
            javaCommand(MultipartApp.class.getName(), bucket));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(reports(report).writes())
        .as("create, three parts and complete: one row, one write")
        .extracting(UnfencedWriteRow::operation, UnfencedWriteRow::key, UnfencedWriteRow::count)
        .containsExactly(tuple("createMultipartUpload", MultipartApp.KEY, 1L));
    assertThat(exists(bucket, MultipartApp.KEY)).isTrue();
  }

  @Test
  void theCommandsOwnExitStatusIsPassedThrough() throws Exception {
    String bucket = bucket("status");

    Cli.Run run = audit(List.of(), appCommand(bucket, 7));

    assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(7);
    assertThat(run.out()).contains("2 unfenced writes at 2 call sites; the command exited with 7");
  }

  @Test
  void aCommandThatIsNotJavaGetsTheAgentThroughJavaToolOptions() throws Exception {
    String bucket = bucket("script");
    List<String> command = new ArrayList<>(List.of("env", "WRITER_FENCE_AUDIT_TEST=1"));
    command.addAll(appCommand(bucket, 0));

    Cli.Run run = audit(List.of(), command);

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out()).contains("writer-fence audit (log): 2 unfenced writes at 2 call sites");
  }

  @Test
  void aCommandThatStartsNoJvmLeavesNoReportAndFails() {
    Cli.Run ok = audit(List.of(), List.of("true"));
    Cli.Run failed = audit(List.of(), List.of("sh", "-c", "exit 5"));

    assertThat(ok.exitCode()).isEqualTo(1);
    assertThat(ok.err())
        .contains("writer-fence audit: no audit report in ")
        .contains("the command started no JVM with the agent");
    assertThat(failed.exitCode()).isEqualTo(5);
  }

  @Test
  void aCommandThatCannotStartIsNamed() {
    Cli.Run run = audit(List.of(), List.of("/nonexistent/java-like-program"));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("writer-fence audit: cannot start '/nonexistent/");
  }

  @Test
  void noCommandIsBadInput() {
    Cli.Run run = Cli.run("audit", "--enforce");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).startsWith("writer-fence: missing required parameter: 'COMMAND'");
  }

  @Test
  void theCommandsNonZeroStatusGivesWayToFailOnAndTheSummarySaysSo() throws Exception {
    String bucket = bucket("precedence");

    Cli.Run run = audit(List.of("--fail-on", "unfenced"), appCommand(bucket, 7));

    assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(AuditCommand.MAP_FAILED);
    assertThat(run.out())
        .contains("; the command exited with 7; the audit exits with 4 instead, which comes first");
  }

  @Test
  void C35_eachJvmOfAScriptKeepsItsReportSoFailOnSeesTheUnfencedWriter() throws Exception {
    String bucket = bucket("script-jvms");
    Path reports = dir.resolve("script-reports");
    Path go = dir.resolve("go");
    List<String> lingering = javaCommand(Lingering.class.getName(), go.toString());
    Path script = dir.resolve("run.sh");
    // The lingering JVM writes nothing and exits last: once, its report overwrote the app's.
    Files.writeString(
        script,
        String.join(
            "\n",
            "#!/bin/sh",
            shell(lingering) + " &",
            shell(spreadCommand(bucket, FenceNames.random("a"), FenceNames.random("b"))),
            "status=$?",
            "touch " + shell(List.of(go.toString())),
            "wait",
            "exit $status",
            ""));

    Cli.Run run =
        audit(
            List.of("--fail-on", "unfenced,inconsistent", "--report", reports.toString()),
            List.of("sh", script.toString()));

    assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(AuditCommand.MAP_FAILED);
    assertThat(AuditReports.perJvmReports(reports)).as("one report per JVM").hasSize(2);
    assertThat(run.out())
        .contains(" in 2 reports")
        .contains("bucket " + bucket + ": INCONSISTENT")
        .contains(SpreadApp.class.getName() + ".spread(SpreadApp.java:");
    assertThat(run.err())
        .contains(
            "the writer map has unfenced and inconsistent writers"
                + " (--fail-on unfenced,inconsistent)");
  }

  @Test
  void reportsWrittenBeforeAreJudgedWithoutACommand() throws Exception {
    String bucket = bucket("judged");
    Path reports = dir.resolve("judged");
    String fence = FenceNames.random("judged");
    Cli.Run first =
        audit(
            List.of("--map", "--report", reports.toString()), spreadCommand(bucket, fence, fence));
    assertThat(first.exitCode()).as(first.err() + first.out()).isZero();
    Path written = AuditReports.perJvmReports(reports).get(0);
    Path empty = dir.resolve("empty.json");
    Files.writeString(
        empty, "{\"mode\":\"log\",\"map\":true,\"unfenced_writes\":[],\"fenced_writes\":[]}");

    Cli.Run files =
        Cli.run(
            "audit",
            "--map",
            "--fail-on",
            "unfenced",
            "--report",
            written.toString(),
            "--report",
            empty.toString());
    Cli.Run directory = Cli.run("audit", "--map", "--report", reports.toString());
    Cli.Run missing = Cli.run("audit", "--map", "--report", dir.resolve("none.json").toString());

    assertThat(files.exitCode()).as(files.err() + files.out()).isEqualTo(AuditCommand.MAP_FAILED);
    assertThat(files.out())
        .as("the empty report hides nothing")
        .contains("writer-fence audit (log): 7 unfenced writes at 2 call sites in 2 reports")
        .doesNotContain("the command exited")
        .contains("bucket " + bucket + ": UNFENCED: 2 writers hold no fence")
        .contains("report: " + empty);
    assertThat(directory.exitCode()).as(directory.err() + directory.out()).isZero();
    assertThat(directory.out()).contains("bucket " + bucket + ":");
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("none.json' does not exist");
  }

  @Test
  void failOnWithNoWriteSeenWarnsAndExitsWithFive() throws Exception {
    Path go = Files.createFile(dir.resolve("already"));

    Cli.Run run =
        audit(
            List.of("--fail-on", "unfenced"),
            javaCommand(Lingering.class.getName(), go.toString()));
    Cli.Run plain = audit(List.of(), javaCommand(Lingering.class.getName(), go.toString()));

    assertThat(run.exitCode()).as(run.err() + run.out()).isEqualTo(AuditCommand.NOTHING_SEEN);
    assertThat(run.out()).contains("writer map: no write seen");
    assertThat(run.err())
        .contains("warning: no write seen in 1 report, fenced or not")
        .contains("audit.paths (is it set?)")
        .contains("(--fail-on: nothing judged, exit 5)");
    assertThat(plain.exitCode()).as("without --fail-on, only the warning").isZero();
    assertThat(plain.err()).contains("warning: no write seen");
  }

  @Test
  void thePlainTableShowsTheKeySampleAndTheWrappersFrame() throws Exception {
    String bucket = bucket("plain");

    Cli.Run run =
        audit(List.of(), spreadCommand(bucket, FenceNames.random("a"), FenceNames.random("b")));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    assertThat(run.out().lines())
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(
                        "spread/1.json, spread/2.json, spread/3.json, spread/4.json,"
                            + " spread/5.json, +more")
                    .contains(".spread(SpreadApp.java:")
                    .endsWith(" " + SpreadApp.SPREAD_WRITES))
        .anySatisfy(
            l ->
                assertThat(l)
                    .contains(SpreadApp.VIA_KEY)
                    .contains(".upload(SpreadApp.java:")
                    .contains("io.awspring.cloud.s3.S3Template.upload("));
  }

  @Test
  void C35_theMapNamesTheWriterWhoseFenceNameIsTheOddOneOut() throws Exception {
    String bucket = bucket("odd");
    String a = FenceNames.random("odd-a");
    String b = FenceNames.random("odd-b");
    Path report = dir.resolve("odd");

    Cli.Run run =
        audit(List.of("--map", "--report", report.toString()), spreadCommand(bucket, a, b));

    assertThat(run.exitCode()).as(run.err() + run.out()).isZero();
    String counts = "2 writers hold '" + a + "', 1 holds '" + b + "'";
    assertThat(reports(report).map().writers())
        .filteredOn(w -> w.fenceName() != null)
        .extracting(w -> w.callSite().replaceAll("\\(.*", ""), WriterMap.Writer::note)
        .containsExactlyInAnyOrder(
            tuple(SPREAD + ".load", "majority name '" + a + "'; " + counts),
            tuple(SPREAD + ".merge", "majority name '" + a + "'; " + counts),
            tuple(SPREAD + ".prune", "odd one out: holds '" + b + "'; " + counts));
    assertThat(run.out())
        .contains(
            "bucket " + bucket + ": INCONSISTENT: writers hold 2 fence names (" + counts + ")")
        .contains("odd one out: holds '" + b + "'");
  }

  private static final String SPREAD = SpreadApp.class.getName();

  private List<String> spreadCommand(String bucket, String fenceA, String fenceB) {
    return javaCommand(SPREAD, db.jdbcUrl(), fenceA, fenceB, bucket);
  }

  private static AuditReports reports(Path directory) throws IOException {
    return AuditReports.read(AuditReports.perJvmReports(directory));
  }

  private List<String> appCommand(String bucket, int status) {
    return javaCommand(
        AuditedApp.class.getName(),
        db.jdbcUrl(),
        FenceNames.random("audit"),
        bucket,
        Integer.toString(status));
  }

  private static final String APP = MappedApp.class.getName();

  /** lmdbjava reaches into the JDK's buffers on Java 17 and later. */
  private static final List<String> LMDB_OPENS =
      List.of(
          "--add-opens",
          "java.base/java.nio=ALL-UNNAMED",
          "--add-opens",
          "java.base/sun.nio.ch=ALL-UNNAMED");

  /**
   * {@link MappedApp} with the agent's own fence on, so it fences {@code publish} (annotated) and
   * {@code mirror} (named by a {@code fence.methods} entry).
   */
  private List<String> mappedCommand(
      String fenceA, String fenceB, String one, String two, String volume) {
    List<String> options = new ArrayList<>(LMDB_OPENS);
    options.add("-D" + SettingsCatalog.DATASOURCE_URL.property() + "=" + db.jdbcUrl());
    options.add("-D" + SettingsCatalog.DATASOURCE_USERNAME.property() + "=postgres");
    options.add("-D" + SettingsCatalog.FENCE_METHODS.property() + "=" + APP + "#mirror={0}");
    return javaCommand(options, APP, db.jdbcUrl(), fenceA, fenceB, one, two, volume);
  }

  /** The taker of the one writer whose call site contains {@code method}. */
  private static String fencedBy(WriterMap map, String method) {
    return map.writers().stream()
        .filter(w -> w.callSite().contains(method))
        .findFirst()
        .orElseThrow()
        .fencedBy();
  }

  /** A new directory for {@link MappedApp}'s LMDB environment: the volume it writes. */
  private String volume() throws IOException {
    return Files.createTempDirectory(dir, "lmdb-").toAbsolutePath().toString();
  }

  /** A forked JVM running {@code mainClass} with the S3 endpoint, then {@code args}. */
  private List<String> javaCommand(String mainClass, String... args) {
    return javaCommand(List.of(), mainClass, args);
  }

  /** As {@link #javaCommand(String, String...)}, with JVM options of the app's own. */
  private List<String> javaCommand(List<String> jvmOptions, String mainClass, String... args) {
    return runs.javaCommand(jvmOptions, mainClass, args);
  }

  private static String bucket(String purpose) {
    return runs.bucket(purpose);
  }

  private static boolean exists(String bucket, String key) {
    return runs.exists(bucket, key);
  }
}
