package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code schema install} and {@code status} against the embedded PostgreSQL. */
class SchemaAndStatusCommandTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @Test
  void schemaInstallTwiceIsIdempotentAndKeepsTheTokenCounter() throws SQLException {
    String schema = "cli_install_twice";

    Cli.Run first = installSchema(schema);
    assertThat(first.exitCode()).as(first.err()).isZero();
    assertThat(first.out())
        .contains(
            "installed the SQL contract version "
                + FenceSchema.VERSION
                + " in schema '"
                + schema
                + "'");
    assertThat(count("SELECT count(*) FROM pg_namespace WHERE nspname = ?", schema)).isEqualTo(1);

    WriterFence fence = WriterFence.builder(db.dataSource()).schema(schema).build();
    FenceLease lease =
        fence
            .tryAcquire(
                FenceRequest.builder("install-twice")
                    .holderLabel("first")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .orElseThrow();
    fence.release(lease);

    Cli.Run second = installSchema(schema);
    assertThat(second.exitCode()).as(second.err()).isZero();
    assertThat(second.out()).contains("schema '" + schema + "' was already installed");
    FenceLease next =
        fence
            .tryAcquire(
                FenceRequest.builder("install-twice")
                    .holderLabel("second")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    fence.release(next);
  }

  @Test
  void schemaInstallGrantsToTheNamedRole() throws SQLException {
    db.execute(
        "DO $$ BEGIN CREATE ROLE cli_app LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    Cli.Run run = installSchema("cli_granted", "--grant-to", "cli_app");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("EXECUTE granted to: cli_app");
    assertThat(
            count(
                "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = ? AND p.proname = 'acquire'"
                    + " AND has_function_privilege('cli_app', p.oid, 'EXECUTE')",
                "cli_granted"))
        .isEqualTo(1);
  }

  @Test
  void badSchemaNameIsAUsageErrorNamingItAndWritesNothing() throws SQLException {
    long schemasBefore = count("SELECT count(*) FROM pg_namespace WHERE nspname <> ?", "");

    Cli.Run run = installSchema("Bad-Schema");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("--schema 'Bad-Schema' is not allowed")
        .contains("lower-case SQL identifier");
    assertThat(run.out()).isEmpty();
    assertThat(count("SELECT count(*) FROM pg_namespace WHERE nspname <> ?", ""))
        .isEqualTo(schemasBefore);
  }

  @Test
  void badJdbcUrlIsAUsageErrorNamingIt() {
    Cli.Run run = Cli.run("schema", "install", "--jdbc-url", "jdbc:mysql://127.0.0.1/app");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--jdbc-url 'jdbc:mysql://127.0.0.1/app' is not allowed");
  }

  @Test
  void missingJdbcUrlIsAUsageError() {
    Cli.Run run = Cli.run("status");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("missing required option: '--jdbc-url=URL'");
  }

  @Test
  void statusBeforeSchemaInstallSaysSoAndHowToInstallIt() {
    Cli.Run run = status("--schema", "cli_never_installed");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith(
            "writer-fence status: the writer-fence schema 'cli_never_installed' is not installed"
                + " in this database")
        .contains(
            "./writer-fence schema install --jdbc-url "
                + db.jdbcUrl()
                + " --schema cli_never_installed --grant-to ROLE")
        .doesNotContain("ERROR: relation");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void statusBeforeSchemaInstallDoesNotRepeatAPasswordFromTheUrl() {
    Cli.Run run =
        Cli.run(
            "status",
            "--jdbc-url",
            db.jdbcUrl() + "?password=not-to-be-printed",
            "--user",
            "postgres",
            "--schema",
            "cli_never_installed");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains(
            "./writer-fence schema install --jdbc-url URL --schema cli_never_installed"
                + " --grant-to ROLE")
        .doesNotContain("not-to-be-printed");
  }

  @Test
  void unknownGrantRoleFailsWithTheDatabaseMessage() {
    Cli.Run run = installSchema("cli_no_role", "--grant-to", "no_such_role");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("no_such_role").contains("42704");
  }

  @Test
  void statusShowsHolderLabelTokenAndState() {
    WriterFence fence = WriterFence.builder(db.dataSource()).build();
    FenceLease held =
        fence
            .tryAcquire(
                FenceRequest.builder("cli-status-held")
                    .holderLabel("upload")
                    .ttl(Duration.ofSeconds(120))
                    .build())
            .orElseThrow();
    FenceLease freed =
        fence
            .tryAcquire(
                FenceRequest.builder("cli-status-free")
                    .holderLabel("pull_sync")
                    .ttl(Duration.ofSeconds(120))
                    .build())
            .orElseThrow();
    fence.release(freed);
    try {
      Cli.Run run = status();

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out().lines().findFirst().orElseThrow())
          .matches(
              "fence name +holder label +fencing token +timeline\\.counter +acquired +age"
                  + " +expires +seconds left +state +waiters");
      assertThat(run.out().lines().filter(l -> l.startsWith("cli-status-held ")))
          .singleElement()
          .asString()
          .contains("upload@" + HolderLabel.instance(), " " + held.fencingToken() + " ", "held")
          // the token as FencingTokens.describe gives it, timeline.counter (ADR 47), beside the
          // number
          .containsPattern(
              " "
                  + held.fencingToken()
                  + " +"
                  + Pattern.quote(FencingTokens.describe(held.fencingToken()))
                  + " ");
      assertThat(run.out().lines().filter(l -> l.startsWith("cli-status-free ")))
          .singleElement()
          .asString()
          .contains("pull_sync@" + HolderLabel.instance(), "free");

      Cli.Run json = status("--json");
      assertThat(json.exitCode()).isZero();
      assertThat(json.out())
          .contains("\"fence_name\":\"cli-status-held\"")
          .contains("\"state\":\"held\"")
          .contains(
              "\"fencing_token\":"
                  + held.fencingToken()
                  + ",\"timeline_counter\":\""
                  + FencingTokens.describe(held.fencingToken())
                  + "\"")
          .contains("\"age_seconds\":")
          .contains("\"database_time\":");
    } finally {
      fence.release(held);
    }
  }

  /** An annotated method, entered as every weaving mode's advice enters it. */
  static class Uploader {
    @WriterFenced(value = "cli-status-annotated", holder = "upload")
    void upload(Runnable body) {
      body.run();
    }
  }

  @Test
  void statusNamesTheInstanceThatHoldsForAnAnnotatedMethod() throws Throwable {
    WriterFence fence = WriterFence.builder(db.dataSource()).build();
    Method upload = Uploader.class.getDeclaredMethod("upload", Runnable.class);
    AtomicReference<Cli.Run> inside = new AtomicReference<>();
    Runnable body = () -> inside.set(status("--json"));

    FencedMethods.proceed(
        fence,
        upload,
        new Object[] {body},
        () -> {
          new Uploader().upload(body);
          return null;
        });

    Cli.Run run = inside.get();
    assertThat(run.exitCode()).as(run.err()).isZero();
    String host = InetAddress.getLocalHost().getHostName();
    String pid = String.valueOf(ProcessHandle.current().pid());
    assertThat(run.out())
        .contains(
            "\"fence_name\":\"cli-status-annotated\",\"holder_label\":\"upload@"
                + host
                + ":"
                + pid
                + "\"");
    assertThat(status().out().lines().filter(l -> l.startsWith("cli-status-annotated ")))
        .singleElement()
        .asString()
        .contains("upload@" + host + ":" + pid, "free");
  }

  @Test
  void ageReadsInSecondsMinutesHoursAndDays() {
    assertThat(StatusCommand.age(new BigDecimal("0.0449"))).isEqualTo("0.0s");
    assertThat(StatusCommand.age(new BigDecimal("59.99"))).isEqualTo("59.9s");
    assertThat(StatusCommand.age(new BigDecimal("60"))).isEqualTo("1m00s");
    assertThat(StatusCommand.age(new BigDecimal("3599.9"))).isEqualTo("59m59s");
    assertThat(StatusCommand.age(new BigDecimal("7260"))).isEqualTo("2h01m");
    assertThat(StatusCommand.age(new BigDecimal("273600"))).isEqualTo("3d04h");
  }

  /** {@code schema install} into {@code schema}, as the embedded server's superuser. */
  private Cli.Run installSchema(String schema, String... more) {
    return asSuperuser(List.of("schema", "install", "--schema", schema), more);
  }

  /** {@code status}, as the embedded server's superuser. */
  private Cli.Run status(String... more) {
    return asSuperuser(List.of("status"), more);
  }

  private Cli.Run asSuperuser(List<String> command, String... more) {
    List<String> args = new ArrayList<>(command);
    args.addAll(List.of("--jdbc-url", db.jdbcUrl(), "--user", "postgres"));
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }

  private long count(String sql, String param) throws SQLException {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, param);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
