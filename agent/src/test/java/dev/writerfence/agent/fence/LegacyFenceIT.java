package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.agent.fence.EventRecord.Event;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/**
 * The legacy sample, which has no writer-fence dependency, fenced by the real agent jar and a
 * config file alone, in JVMs of its own against the embedded PostgreSQL.
 */
class LegacyFenceIT {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration ANSWER = Duration.ofSeconds(60);

  @TempDir Path dir;
  private String fence;
  private Path bucket;

  @BeforeEach
  void freshFenceName(TestInfo test) {
    fence = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("legacy"));
    bucket = dir.resolve("bucket");
  }

  @Test
  void twoLegacyProcessesNeverWriteAtTheSameTime() {
    Path config =
        config(
            "fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/uploader",
            // Patient: both processes contend all the time, neither may give up.
            "retry.max-attempts=1000",
            "retry.initial-interval=5ms",
            "retry.multiplier=1.5",
            "retry.max-interval=40ms");
    List<String> shownLabels = new ArrayList<>();
    try (ForkedJvm a = LegacyJvm.start(config, bucket);
        ForkedJvm b = LegacyJvm.start(config, bucket)) {
      shownLabels.addAll(List.of(shown("uploader", a), shown("uploader", b)));
      a.send("upload-many a 25");
      b.send("upload-many b 25");
      assertThat(a.awaitLine("uploaded-many", Duration.ofMinutes(3)))
          .isEqualTo("uploaded-many a 25");
      assertThat(b.awaitLine("uploaded-many", Duration.ofMinutes(3)))
          .isEqualTo("uploaded-many b 25");
    }

    List<Event> events = EventRecord.read(bucket);
    assertThat(events).hasSize(100);
    assertThat(EventRecord.check(events).violations()).isEmpty();
    assertThat(events).allSatisfy(e -> assertThat(e.fence()).isEqualTo(fence));
    assertThat(events).allSatisfy(e -> assertThat(e.holder()).isIn(shownLabels));
    assertThat(events.stream().map(e -> e.writer().split("/")[0]).distinct()).hasSize(2);
    assertThat(events.stream().filter(e -> e.kind().equals("enter")).map(Event::token).distinct())
        .as("each upload is a hold of its own with a new fencing token")
        .hasSize(50);
  }

  @Test
  void busyFenceGivesWriterFenceBusyExceptionAndTheMethodNeverRuns() {
    Path patient = config("fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/holder");
    Path impatient =
        config(
            "fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/impatient",
            "retry.max-attempts=3",
            "retry.initial-interval=20ms",
            "retry.max-interval=20ms");
    try (ForkedJvm holder = LegacyJvm.start(patient, bucket);
        ForkedJvm other = LegacyJvm.start(impatient, bucket)) {
      holder.send("hold first");
      long held = token(holder.awaitLine("holding", ANSWER));

      other.send("upload second");
      assertThat(other.awaitLine(l -> true, ANSWER))
          .startsWith("failed WriterFenceBusyException")
          .contains(fence);
      assertThat(bucket.resolve("second")).doesNotExist();
      assertThat(EventRecord.read(bucket)).noneMatch(e -> e.key().equals("second"));

      holder.send("finish");
      holder.awaitLine("finished first", ANSWER);
      other.send("upload third");
      assertThat(token(other.awaitLine("uploaded third", ANSWER))).isGreaterThan(held);
    }
  }

  @Test
  void anEntryWithOnBusySkipReturnsAtOnceWithoutRunningAndRefusesAMethodReturningLong() {
    Path holding = config("fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/holder");
    Path skipping =
        config(
            "fence.methods=com.acme.sync.Uploader#uploadLater="
                + fence
                + "/skipper;on-busy=skip;retry.max-wait=100ms,"
                + "com.acme.sync.Uploader#upload="
                + fence
                + "/skipper;on-busy=skip");
    try (ForkedJvm holder = LegacyJvm.start(holding, bucket);
        ForkedJvm other = LegacyJvm.start(skipping, bucket)) {
      holder.send("hold first");
      holder.awaitLine("holding", ANSWER);

      // Busy: the stage method returns a completed stage of null, without running or throwing.
      other.send("upload-later skipped");
      assertThat(other.awaitLine(l -> true, ANSWER)).isEqualTo("started skipped");
      other.send("complete-later");
      assertThat(other.awaitLine(l -> true, ANSWER)).isEqualTo("completed null");
      assertThat(bucket.resolve("skipped")).doesNotExist();
      assertThat(row().get("holder_label")).isEqualTo(shown("holder", holder));

      // A skipped long method would have no value to return: it never runs, busy or not.
      other.send("upload refused");
      assertThat(other.awaitLine(l -> true, ANSWER))
          .startsWith("failed IllegalArgumentException")
          .contains("onBusy = SKIP is not allowed on com.acme.sync.Uploader#upload")
          .contains("which returns long");
      assertThat(other.stderr()).contains("calls of it fail and it never runs");

      holder.send("finish");
      holder.awaitLine("finished first", ANSWER);
      other.send("upload refused");
      assertThat(other.awaitLine(l -> true, ANSWER)).startsWith("failed IllegalArgumentException");
      assertThat(bucket.resolve("refused")).doesNotExist();
    }
  }

  @Test
  void C13_methodReturningAFutureKeepsTheLeaseUntilItCompletes() {
    Path config = config("fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/async");
    Path impatient =
        config(
            "fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/other",
            "retry.max-attempts=2",
            "retry.initial-interval=20ms");
    try (ForkedJvm app = LegacyJvm.start(config, bucket);
        ForkedJvm other = LegacyJvm.start(impatient, bucket)) {
      app.send("upload-later late");
      assertThat(app.awaitLine(l -> true, ANSWER)).isEqualTo("started late");
      assertThat(row().get("holder_label"))
          .as("held while the stage runs")
          .isEqualTo(shown("async", app));
      other.send("upload meanwhile");
      assertThat(other.awaitLine(l -> true, ANSWER)).startsWith("failed WriterFenceBusyException");

      app.send("complete-later");
      assertThat(app.awaitLine(l -> true, ANSWER)).isEqualTo("completed late");
      // The caller's future completes only after the release.
      assertThat(row().get("holder_token")).isNull();
      assertThat(bucket.resolve("late")).exists();
      assertThat(bucket.resolve("meanwhile")).doesNotExist();
    }
  }

  @Test
  void C08_nestedFencedCallRunsInsideTheOuterHoldWithOneAcquire() {
    Path config = config("fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/sync-walk");
    try (ForkedJvm app = LegacyJvm.start(config, bucket)) {
      app.send("upload-all x,y,z");
      // A brand-new fence name: its first acquire mints its timeline's first token.
      long first = FencingTokens.first(1);
      assertThat(app.awaitLine("uploaded-all", ANSWER))
          .isEqualTo("uploaded-all tokens=" + first + "," + first + "," + first);
    }
    assertThat(row().get("fencing_token"))
        .as("one acquire for the walk and its uploads")
        .isEqualTo(FencingTokens.first(1));
    assertThat(row().get("holder_token")).as("released").isNull();
    assertThat(EventRecord.check(EventRecord.read(bucket)).violations()).isEmpty();
  }

  @Test
  void unreachableDatabaseFailsClosedAndTheMethodNeverRuns() {
    Path config =
        LegacyJvm.config(
            dir,
            "fence.methods=com.acme.sync.Uploader#upload*=" + fence,
            "datasource.url=jdbc:postgresql://127.0.0.1:1/postgres",
            "query-timeout=1s");
    try (ForkedJvm app = LegacyJvm.start(config, bucket)) {
      app.send("upload lost");
      assertThat(app.awaitLine(l -> true, ANSWER))
          .startsWith("failed WriterFenceUnavailableException");
    }
    assertThat(bucket.resolve("lost")).doesNotExist();
    assertThat(EventRecord.read(bucket)).isEmpty();
  }

  @Test
  void releaseUsesTheHolderTokenThatAcquireMinted() {
    Path config = config("fence.methods=com.acme.sync.Uploader#upload*=" + fence + "/minted");
    try (ForkedJvm app = LegacyJvm.start(config, bucket)) {
      app.send("hold k");
      String holding = app.awaitLine("holding", ANSWER);
      Map<String, Object> held = row();
      assertThat(held.get("holder_token").toString()).isEqualTo(field(holding, "holderToken"));
      assertThat(held.get("holder_label")).isEqualTo(shown("minted", app));
      assertThat(held.get("fencing_token")).isEqualTo(token(holding));

      app.send("finish");
      app.awaitLine("finished k", ANSWER);
      Map<String, Object> released = row();
      assertThat(released.get("holder_token")).as("freed by its own holder token").isNull();
      assertThat(released.get("fencing_token")).isEqualTo(token(holding));
    }
  }

  @Test
  void entryNamesItsOwnFenceTemplateAndHolderOrTakesTheDefaults() {
    Path config =
        config(
            "fence-name=" + fence + "-default",
            "holder=legacy-default",
            "fence.methods=com.acme.volume.Materializer#materialize="
                + fence
                + "/{0}/materializer, com.acme.sync.Uploader#upload",
            "retry.max-attempts=3");
    ForkedJvm forked;
    try (ForkedJvm app = LegacyJvm.start(config, bucket)) {
      forked = app;
      app.send("materialize v1");
      app.awaitLine("materialized v1", ANSWER);
      app.send("upload k1");
      app.awaitLine("uploaded k1", ANSWER);
    }
    List<Event> events = EventRecord.read(bucket);
    assertThat(events)
        .filteredOn(e -> e.key().equals("volume-v1"))
        .hasSize(2)
        .allSatisfy(e -> assertThat(e.fence()).isEqualTo(fence + "/v1"))
        .allSatisfy(e -> assertThat(e.holder()).isEqualTo(shown("materializer", forked)));
    assertThat(events)
        .filteredOn(e -> e.key().equals("k1"))
        .hasSize(2)
        .allSatisfy(e -> assertThat(e.fence()).isEqualTo(fence + "-default"))
        .allSatisfy(e -> assertThat(e.holder()).isEqualTo(shown("legacy-default", forked)));
  }

  @Test
  void badConfigurationStopsTheStartAndNamesTheProblem() {
    assertStartRefused(
        config("fence.methods=com.acme.sync.Uploader.upload=" + fence),
        "fence.methods entry 'com.acme.sync.Uploader.upload=" + fence + "' is not allowed");
    assertStartRefused(
        config("fence.methods=com.acme.sync.Uploader#upload=" + fence + "{x}"),
        "fence.methods entry 'com.acme.sync.Uploader#upload=" + fence + "{x}' is not allowed");
    assertStartRefused(
        config("fence.methods=com.acme.sync.Uploader#upload"), "the setting fence-name is not set");
    assertStartRefused(
        LegacyJvm.config(dir, "fence.methods=com.acme.sync.Uploader#upload=" + fence),
        "fence.methods is set but datasource.url is not");
    assertStartRefused(
        config("fence.method=com.acme.sync.Uploader#upload=" + fence),
        "unknown setting 'fence.method'");
    assertStartRefused(
        config("fence.methods=com.acme.sync.Uploader#upload=" + fence, "ttl=soon"), "ttl 'soon'");
    assertStartRefused(
        config("fence.methods=com.acme.sync.Uploader#upload=" + fence, "renew-interval=50ms"),
        "renew interval PT0.05S is not allowed");
  }

  @Test
  void entriesThatFenceNothingAreNamedWhenTheirClassLoadsAndAtExit() {
    Path config =
        config(
            "fence.methods=com.acme.sync.Uploader#nosuch*="
                + fence
                + ",com.acme.Missing#write="
                + fence);
    try (ForkedJvm app = LegacyJvm.launch(config, bucket.toString(), "upload", "k")) {
      assertThat(app.awaitExit(ANSWER)).as(app.output() + app.stderr()).isZero();
      assertThat(app.output()).contains("uploaded k token=-1");
      assertThat(app.stderr())
          .contains(
              "fence.methods entry 'com.acme.sync.Uploader#nosuch*="
                  + fence
                  + "' matches no method declared in com.acme.sync.Uploader")
          .contains(
              "fence.methods entry 'com.acme.Missing#write="
                  + fence
                  + "' fenced nothing: its class was never loaded");
    }
  }

  private void assertStartRefused(Path config, String message) {
    try (ForkedJvm app = LegacyJvm.launch(config, bucket.toString(), "upload", "never")) {
      assertThat(app.awaitExit(ANSWER)).as(app.stderr()).isEqualTo(1);
      assertThat(app.output())
          .as("main never ran")
          .noneMatch(l -> l.startsWith("uploaded") || l.startsWith("failed"));
      assertThat(app.stderr())
          .contains(message)
          .contains("the JVM does not start")
          .doesNotContain("FATAL ERROR")
          .doesNotContain("writer-fence agent: writer-fence agent");
    }
    assertThat(bucket.resolve("never")).doesNotExist();
  }

  private Path config(String... settings) {
    List<String> lines = new ArrayList<>(LegacyJvm.dataSource(DB));
    lines.addAll(List.of(settings));
    return LegacyJvm.config(dir, lines.toArray(String[]::new));
  }

  /** A label as the rows of a forked JVM show it: with that JVM's host and pid. */
  private static String shown(String label, ForkedJvm jvm) {
    return label + "@" + HolderLabel.host() + ":" + jvm.pid();
  }

  /** The fence's lease row: holder token (text, or null when free), holder label, token. */
  private Map<String, Object> row() {
    String where = " FROM writer_fence.lease WHERE fence_name = ?";
    Map<String, Object> row = new java.util.HashMap<>();
    row.put(
        "holder_token", DB.queryValue(String.class, "SELECT holder_token::text" + where, fence));
    row.put("holder_label", DB.queryValue(String.class, "SELECT holder_label" + where, fence));
    row.put("fencing_token", DB.queryValue(Long.class, "SELECT fencing_token" + where, fence));
    return row;
  }

  private static long token(String line) {
    return Long.parseLong(field(line, "token"));
  }

  private static String field(String line, String name) {
    for (String part : line.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    throw new AssertionError("no " + name + "= in: " + line);
  }
}
