package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.WriterProcess;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The operations case (C24): a holder killed with SIGKILL leaves its lease held until the TTL; the
 * operator finds it with {@code status} and clears it with {@code release --force}, as the owner of
 * the lease table and after confirming.
 */
class OpsCasesTest {
  /** The schema of these tests, owned by the superuser {@code postgres}. */
  static final String SCHEMA = "cli_ops";

  /** The role the writers connect as: EXECUTE on the functions, nothing on the table. */
  static final String APP_ROLE = "cli_ops_app";

  private static final EmbeddedDatabase db = EmbeddedDatabase.get();

  @BeforeAll
  static void installSchema() {
    db.execute(
        "DO $$ BEGIN CREATE ROLE "
            + APP_ROLE
            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    Cli.Run run =
        Cli.run(
            "schema",
            "install",
            "--jdbc-url",
            db.jdbcUrl(),
            "--user",
            "postgres",
            "--schema",
            SCHEMA,
            "--grant-to",
            APP_ROLE);
    assertThat(run.exitCode()).as(run.err()).isZero();
  }

  @Test
  void C24_sigkilledHolderIsShownByStatusAndClearedByForceReleaseKeepingTokensMonotonic()
      throws Exception {
    String name = FenceNames.random("c24");

    // A writer in a JVM of its own takes the fence with a long TTL and dies by SIGKILL: no
    // shutdown hook runs, so nothing releases the lease.
    long token;
    String label; // the row names the dead instance: its host and pid
    try (ForkedJvm holder = WriterProcess.fork(db, SCHEMA, "serve")) {
      holder.send("try " + name + " stuck-upload 3600");
      String answer =
          holder.awaitLine(
              l -> l.startsWith("acquired ") || l.equals("busy"), Duration.ofSeconds(30));
      assertThat(answer).startsWith("acquired ");
      token = Long.parseLong(answer.substring("acquired ".length()));
      Process process = holder.process();
      label = "stuck-upload@" + HolderLabel.host() + ":" + process.pid();
      process.destroyForcibly();
      assertThat(process.waitFor(10, TimeUnit.SECONDS)).as("killed within 10 s").isTrue();
      assertThat(process.exitValue()).as("128 + SIGKILL").isEqualTo(137);
    }
    Row killed = row(name);
    assertThat(killed.hasHolder()).as("the dead holder's lease is still held").isTrue();
    assertThat(killed.fencingToken()).isEqualTo(token);

    // status: label, fencing token, age, expiry and seconds left, state
    Cli.Run status = asOwner(List.of("status"));
    assertThat(status.exitCode()).as(status.err()).isZero();
    assertThat(status.out().lines().findFirst().orElseThrow())
        .matches(
            "fence name +holder label +fencing token +timeline\\.counter +acquired +age +expires"
                + " +seconds left +state +waiters");
    assertThat(status.out().lines().filter(l -> l.startsWith(name + " ")))
        .singleElement()
        .asString()
        .matches(
            "\\Q"
                + name
                + "\\E +\\Q"
                + label
                + "\\E +"
                + token
                + " +\\Q"
                + FencingTokens.describe(token)
                + "\\E +\\S+ \\S+Z +\\d+\\.\\ds +\\S+ \\S+Z +3[56]\\d\\d\\.\\d +held +0");

    Cli.Run json = asOwner(List.of("status", "--json"));
    assertThat(json.exitCode()).as(json.err()).isZero();
    JsonNode root = new ObjectMapper().readTree(json.out());
    JsonNode shown = null;
    for (JsonNode f : root.get("fences")) {
      if (f.get("fence_name").asText().equals(name)) {
        shown = f;
      }
    }
    assertThat(shown).as(json.out()).isNotNull();
    assertThat(shown.get("holder_label").asText()).isEqualTo(label);
    assertThat(shown.get("fencing_token").asLong()).isEqualTo(token);
    assertThat(shown.get("timeline_counter").asText()).isEqualTo(FencingTokens.describe(token));
    assertThat(shown.get("state").asText()).isEqualTo("held");
    Instant databaseTime = Instant.parse(root.get("database_time").asText());
    Instant acquired = Instant.parse(shown.get("acquired_at").asText());
    Instant expires = Instant.parse(shown.get("expires_at").asText());
    BigDecimal age = shown.get("age_seconds").decimalValue();
    assertThat(Duration.between(acquired, expires)).isEqualTo(Duration.ofSeconds(3600));
    assertThat(age).isPositive();
    assertThat(age.subtract(seconds(Duration.between(acquired, databaseTime))).abs())
        .as("age is the database clock minus acquired_at")
        .isLessThanOrEqualTo(new BigDecimal("0.001"));
    assertThat(shown.get("seconds_left").decimalValue())
        .isGreaterThan(BigDecimal.valueOf(3500))
        .isLessThanOrEqualTo(BigDecimal.valueOf(3600));

    // release --force as the application's role: refused, naming the role and the owner
    Cli.Run notOwner =
        Cli.runAnswering(
            "y\n",
            args(
                List.of("release", "--force", name),
                "--user",
                APP_ROLE,
                "--schema",
                SCHEMA,
                "--yes"));
    assertThat(notOwner.exitCode()).isEqualTo(1);
    assertThat(notOwner.err())
        .startsWith(
            "writer-fence release: role '" + APP_ROLE + "' does not own " + SCHEMA + ".lease")
        .contains("its owner is 'postgres'");
    assertThat(notOwner.out()).doesNotContain("Clear the lease");
    assertThat(row(name)).isEqualTo(killed);

    // as the owner, answering n: the row is shown, nothing changes
    String question =
        "Clear the lease on '"
            + name
            + "' held by '"
            + label
            + "' (fencing token "
            + token
            + ")? [y/N]";
    Cli.Run no = Cli.runAnswering("n\n", forceRelease(name));
    assertThat(no.exitCode()).as(no.err()).isEqualTo(1);
    assertThat(no.out())
        .contains("holder label:   " + label)
        .contains("fencing token:  " + token)
        .containsPattern("acquired: +\\S+ \\S+Z \\(\\d+\\.\\ds ago\\)")
        .containsPattern("expires: +\\S+ \\S+Z \\(in 3[56]\\d\\d\\.\\d s\\)")
        .contains("state:          held")
        .contains(question)
        .contains("not cleared; nothing changed");
    assertThat(row(name)).isEqualTo(killed);

    // answering y: cleared, the fencing token counter kept
    Cli.Run yes = Cli.runAnswering("y\n", forceRelease(name));
    assertThat(yes.exitCode()).as(yes.out() + yes.err()).isZero();
    assertThat(yes.out())
        .contains(question)
        .contains(
            "cleared the lease on '"
                + name
                + "' held by '"
                + label
                + "' (fencing token "
                + token
                + ")");
    Row cleared = row(name);
    assertThat(cleared.hasHolder()).isFalse();
    assertThat(cleared.fencingToken()).isEqualTo(token);
    assertThat(cleared.state()).isEqualTo("free");

    // the next writer acquires at once, with a higher fencing token
    WriterFence fence = WriterFence.builder(db.dataSource()).schema(SCHEMA).build();
    try {
      FenceLease next =
          fence
              .tryAcquire(
                  FenceRequest.builder(name)
                      .holderLabel("next-writer")
                      .ttl(Duration.ofSeconds(30))
                      .build())
              .orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(token);
      assertThat(fence.release(next)).isTrue();
    } finally {
      fence.close();
    }
  }

  /** The lease row as the owner sees it, holder token aside. */
  record Row(boolean hasHolder, long fencingToken, Instant expiresAt, String label, String state) {}

  static Row row(String name) {
    String flat =
        db.queryValue(
            String.class,
            "SELECT concat_ws('|', CASE WHEN l.holder_token IS NULL THEN 'free' ELSE 'holder' END,"
                + " l.fencing_token, extract(epoch FROM l.expires_at)::numeric(20,6),"
                + " coalesce(l.holder_label, ''), s.state)"
                + " FROM "
                + SCHEMA
                + ".lease l JOIN "
                + SCHEMA
                + ".lease_status s USING (fence_name) WHERE fence_name = ?",
            name);
    String[] f = flat.split("\\|", -1);
    BigDecimal epoch = new BigDecimal(f[2]);
    return new Row(
        f[0].equals("holder"),
        Long.parseLong(f[1]),
        Instant.ofEpochSecond(0).plusNanos(epoch.movePointRight(9).longValueExact()),
        f[3],
        f[4]);
  }

  static String[] forceRelease(String name, String... more) {
    List<String> options = new ArrayList<>(List.of("--user", "postgres", "--schema", SCHEMA));
    options.addAll(List.of(more));
    return args(List.of("release", "--force", name), options.toArray(String[]::new));
  }

  static Cli.Run asOwner(List<String> command) {
    return Cli.run(args(command, "--user", "postgres", "--schema", SCHEMA));
  }

  static String[] args(List<String> command, String... more) {
    List<String> args = new ArrayList<>(command);
    args.addAll(List.of("--jdbc-url", db.jdbcUrl()));
    args.addAll(List.of(more));
    return args.toArray(String[]::new);
  }

  private static BigDecimal seconds(Duration d) {
    return BigDecimal.valueOf(d.toNanos()).movePointLeft(9);
  }
}
