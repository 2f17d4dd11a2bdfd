package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.pg.PgLeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every input rule (fence name 1..200 characters, not blank, no control characters; label up to 200
 * characters, no control characters; TTL whole seconds 1..86400; a holder token; a plain schema
 * name) is refused with a message naming the value, in Java and in SQL alike, and nothing reaches
 * the lease table.
 */
class BadInputTest extends FenceTestSupport {
  private static final String NAME_201 = "n".repeat(201);
  private static final String LABEL_201 = "l".repeat(201);
  private static final String BUCKET = "\uD83E\uDEA3"; // U+1FAA3 BUCKET, two UTF-16 chars

  static Stream<Arguments> javaApiRules() {
    WriterFence fence = fence();
    return Stream.of(
        rule("empty fence name", () -> FenceRequest.of(""), "fence name ''"),
        rule("blank fence name", () -> FenceRequest.of("   "), "fence name '   '"),
        rule(
            "fence name of 201 characters",
            () -> FenceRequest.of(NAME_201),
            "'" + "n".repeat(60) + "'... (201 characters)"),
        rule(
            "fence name with a control character",
            () -> fence.tryAcquire("bucket\u0007a", "l", TTL),
            "fence name 'bucket\\u0007a'"),
        rule(
            "label of 201 characters",
            () -> FenceRequest.builder("ok").holderLabel(LABEL_201).build(),
            "holder label '" + "l".repeat(60) + "'... (201 characters)"),
        rule(
            "label with a control character",
            () -> fence.tryAcquire("ok", "up\nload", TTL),
            "holder label 'up\\u000Aload'"),
        rule("TTL 0", () -> FenceRequest.builder("ok").ttl(Duration.ZERO).build(), "TTL PT0S"),
        rule(
            "TTL 86401 s",
            () -> fence.tryAcquire("ok", "l", Duration.ofSeconds(86_401)),
            "TTL PT24H1S"),
        rule(
            "TTL of 1.5 s",
            () -> fence.tryAcquire("ok", "l", Duration.ofMillis(1500)),
            "TTL PT1.5S"),
        rule(
            "default TTL of 2 days",
            () -> WriterFence.builder(DB.dataSource()).defaultTtl(Duration.ofDays(2)),
            "TTL PT48H"),
        rule(
            "schema of the fence",
            () -> WriterFence.builder(DB.dataSource()).schema("Writer-Fence"),
            "schema 'Writer-Fence'"),
        rule(
            "schema to install",
            () -> FenceSchema.defaults().schema("wf; DROP TABLE x"),
            "schema 'wf; DROP TABLE x'"));
  }

  /** The same rules checked by the database, reached through the store with no Java check. */
  static Stream<Arguments> storeRules() {
    PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
    UUID token = UUID.randomUUID();
    return Stream.of(
        rule("empty fence name", () -> store.acquire("", token, "l", TTL), "fence name ''"),
        rule(
            "fence name of 201 characters",
            () -> store.acquire(NAME_201, token, "l", TTL),
            "fence name '" + NAME_201 + "'"),
        rule(
            "label with a control character",
            () -> store.acquire("ok", token, "up\u0007load", TTL),
            "holder label 'up\u0007load'"),
        rule(
            "null holder token",
            () -> store.acquire("ok", null, "l", TTL),
            "holder token is NULL"));
  }

  static Stream<Arguments> sqlRules() {
    UUID token = UUID.randomUUID();
    return Stream.of(
        arguments("empty fence name", "", token, "l", 30, "fence name ''"),
        arguments("blank fence name", "   ", token, "l", 30, "fence name '   '"),
        arguments("null fence name", null, token, "l", 30, "fence name NULL"),
        arguments("201 characters", NAME_201, token, "l", 30, "fence name '" + NAME_201 + "'"),
        arguments("control character", "a\u0007b", token, "l", 30, "fence name 'a\u0007b'"),
        arguments("label of 201", "ok", token, LABEL_201, 30, "holder label '" + LABEL_201 + "'"),
        arguments("label control", "ok", token, "up\u001bload", 30, "label 'up\u001bload'"),
        arguments("TTL 0", "ok", token, "l", 0, "TTL 0 seconds"),
        arguments("TTL 86401", "ok", token, "l", 86_401, "TTL 86401 seconds"),
        arguments("TTL null", "ok", token, "l", null, "TTL NULL seconds"),
        arguments("null holder token", "ok", null, "l", 30, "holder token is NULL"));
  }

  /** Names at the edges of the rules: Java and SQL must agree on each. */
  static Stream<String> edgeNames() {
    return Stream.of(
        "a",
        "n".repeat(200),
        NAME_201,
        BUCKET.repeat(200),
        BUCKET.repeat(201),
        "corpus:" + BUCKET,
        " ",
        "\u2003",
        "\u3000\u2003 ",
        "a\u2003b",
        "\u00A0",
        "x\u0085",
        "x\u009F",
        "x\u00A0",
        "caf\u00E9");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("javaApiRules")
  void javaApiRejectsNamingTheValue(String rule, ThrowingCallable call, String value)
      throws Exception {
    assertRejectedWithNothingWritten(call, value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("storeRules")
  void databaseRejectsWhatBypassesJavaNamingTheValue(
      String rule, ThrowingCallable call, String value) throws Exception {
    assertRejectedWithNothingWritten(call, value);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sqlRules")
  void sqlAcquireRejectsWith22023NamingTheValue(
      String rule, String fenceName, UUID token, String label, Integer ttl, String value)
      throws Exception {
    long before = sql.leaseRows();
    assertThat(catchThrowable(() -> sql.acquire(fenceName, token, label, ttl)))
        .isInstanceOfSatisfying(
            SQLException.class,
            e -> {
              assertThat(e.getSQLState()).isEqualTo("22023");
              assertThat(e.getMessage()).contains(value);
            });
    assertThat(sql.leaseRows()).isEqualTo(before);
  }

  @Test
  void sqlRenewAndReleaseCheckTheirArgumentsToo() throws Exception {
    long before = sql.leaseRows();
    UUID token = UUID.randomUUID();
    assertSqlState("22023", () -> sql.renew(name, token, 0));
    assertSqlState("22023", () -> sql.renew(name, null, 30));
    assertSqlState("22023", () -> sql.release("", token));
    assertSqlState("22023", () -> sql.release(name, null));
    assertThat(sql.leaseRows()).isEqualTo(before);
  }

  @Test
  void sqlTtlIsWholeSecondsByItsType() throws Exception {
    long before = sql.leaseRows();
    try (Connection c = DB.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT writer_fence.acquire(?, gen_random_uuid(), 'l', 1.5)")) {
      ps.setString(1, name);
      // acquire takes an integer TTL and numeric has no implicit cast to it: no such function.
      assertSqlState("42883", ps::executeQuery);
    }
    assertThat(sql.leaseRows()).isEqualTo(before);
  }

  @ParameterizedTest
  @MethodSource("edgeNames")
  void javaAndSqlAgreeOnEveryFenceNameAndLabel(String candidate) throws Exception {
    boolean javaName = catchThrowable(() -> FenceArguments.fenceName(candidate)) == null;
    boolean javaLabel = catchThrowable(() -> FenceArguments.holderLabel(candidate)) == null;
    boolean sqlName = sqlAccepts(candidate, "l");
    boolean sqlLabel = sqlAccepts("ok", candidate);
    assertThat(sqlName).as("SQL accepts the fence name as Java does").isEqualTo(javaName);
    assertThat(sqlLabel).as("SQL accepts the label as Java does").isEqualTo(javaLabel);
  }

  // ---------------------------------------------------------------------------------------------

  private static Arguments rule(String rule, ThrowingCallable call, String value) {
    return arguments(rule, call, value);
  }

  private void assertRejectedWithNothingWritten(ThrowingCallable call, String value)
      throws SQLException {
    long before = sql.leaseRows();
    assertThatThrownBy(call)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(value);
    assertThat(sql.leaseRows()).isEqualTo(before);
  }

  private static void assertSqlState(String state, ThrowingCallable call) {
    assertThat(catchThrowable(call))
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo(state));
  }

  /** Asks the contract's own check, which writes nothing, whether it accepts the values. */
  private static boolean sqlAccepts(String fenceName, String label) throws SQLException {
    try (Connection c = DB.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT writer_fence.check_args(?, gen_random_uuid(), ?, 30)")) {
      ps.setString(1, fenceName);
      ps.setString(2, label);
      ps.executeQuery().close();
      return true;
    } catch (SQLException e) {
      if ("22023".equals(e.getSQLState())) {
        return false;
      }
      throw e;
    }
  }
}
