package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import dev.writerfence.internal.FenceArguments;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every input rule (fence name 1..200 characters, no control or format characters, no unpaired
 * surrogates, no leading or trailing white space; label up to 200 characters, no control or format
 * characters, no unpaired surrogates; TTL whole seconds 1..86400; a holder token; a plain schema
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
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("bucket\u0007a").holderLabel("l").ttl(TTL).build()),
            "fence name 'bucket\\u0007a'"),
        rule(
            "fence name with a zero width space",
            () -> FenceRequest.of("corpus\u200B"),
            "fence name 'corpus\\u200B' is not allowed: 1 to 200 characters, no control or format"
                + " characters, no leading or trailing white space"),
        rule(
            "fence name with a tag character",
            () -> FenceRequest.of("corpus" + cp(0xE0041)),
            "fence name 'corpus\\U000E0041'"),
        rule("fence name with a leading space", () -> FenceRequest.of(" corpus"), "' corpus'"),
        rule(
            "fence name with a trailing ideographic space",
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("corpus\u3000").holderLabel("l").ttl(TTL).build()),
            "fence name 'corpus\u3000'"),
        rule(
            "fence name with an unpaired high surrogate",
            () -> FenceRequest.of("corpus\uD800"),
            "fence name 'corpus\\uD800'"),
        rule(
            "fence name with an unpaired low surrogate",
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("\uDC00corpus").holderLabel("l").ttl(TTL).build()),
            "fence name '\\uDC00corpus'"),
        rule(
            "fence name with a reversed surrogate pair",
            () -> FenceRequest.of("corpus\uDC00\uD800"),
            "fence name 'corpus\\uDC00\\uD800'"),
        rule(
            "label with an unpaired surrogate",
            () -> FenceRequest.builder("ok").holderLabel("up\uD83Eload").build(),
            "holder label 'up\\uD83Eload' is not allowed: up to 200 characters, no control or"
                + " format characters"),
        rule(
            "label with a right-to-left override",
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("ok").holderLabel("daolpu\u202E").ttl(TTL).build()),
            "holder label 'daolpu\\u202E'"),
        rule(
            "label of 201 characters",
            () -> FenceRequest.builder("ok").holderLabel(LABEL_201).build(),
            "holder label '" + "l".repeat(60) + "'... (201 characters)"),
        rule(
            "label with a control character",
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("ok").holderLabel("up\nload").ttl(TTL).build()),
            "holder label 'up\\u000Aload'"),
        rule("TTL 0", () -> FenceRequest.builder("ok").ttl(Duration.ZERO).build(), "TTL PT0S"),
        rule(
            "TTL 86401 s",
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("ok")
                        .holderLabel("l")
                        .ttl(Duration.ofSeconds(86_401))
                        .build()),
            "TTL PT24H1S"),
        rule(
            "TTL of 1.5 s",
            () ->
                fence.tryAcquire(
                    FenceRequest.builder("ok")
                        .holderLabel("l")
                        .ttl(Duration.ofMillis(1500))
                        .build()),
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
            "fence name with a zero width space",
            () -> store.acquire("corpus\u200B", token, "l", TTL),
            "fence name 'corpus\u200B' is not allowed: 1 to 200 characters, no control or format"
                + " characters, no leading or trailing white space"),
        rule(
            "fence name with a trailing space",
            () -> store.acquire("corpus ", token, "l", TTL),
            "fence name 'corpus '"),
        rule(
            "label with a byte order mark",
            () -> store.acquire("ok", token, "\uFEFFupload", TTL),
            "holder label '\uFEFFupload' is not allowed: up to 200 characters, no control or format"
                + " characters"),
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
        arguments("format character", "a\u2066b", token, "l", 30, "fence name 'a\u2066b'"),
        arguments("leading space", " ab", token, "l", 30, "fence name ' ab'"),
        arguments("trailing space", "ab\u2028", token, "l", 30, "fence name 'ab\u2028'"),
        arguments("label format", "ok", token, "up\u00ADload", 30, "label 'up\u00ADload'"),
        arguments("label of 201", "ok", token, LABEL_201, 30, "holder label '" + LABEL_201 + "'"),
        arguments("label control", "ok", token, "up\u001bload", 30, "label 'up\u001bload'"),
        arguments("TTL 0", "ok", token, "l", 0, "TTL 0 seconds"),
        arguments("TTL 86401", "ok", token, "l", 86_401, "TTL 86401 seconds"),
        arguments("TTL null", "ok", token, "l", null, "TTL NULL seconds"),
        arguments("null holder token", "ok", null, "l", 30, "holder token is NULL"));
  }

  /** Names at the edges of the rules: Java and SQL must agree on each. */
  static Stream<String> edgeNames() {
    Stream<String> lengthsAndSpaces =
        Stream.of(
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
            "caf\u00E9",
            // white space at either end only; the no-break spaces are not white space
            " corpus",
            "corpus ",
            "cor pus",
            "\u1680corpus",
            "corpus\u2028",
            "corpus\u2029",
            "corpus\u205F",
            "\u2008corpus",
            "\u2007corpus",
            "corpus\u202F",
            "\u00A0corpus\u00A0",
            "corpus\u3000x");
    // every range of format characters, at its edges, and the characters just outside
    Stream<String> format =
        IntStream.of(
                0x00AD, 0x00AC, 0x00AE, 0x0600, 0x0605, 0x0606, 0x061B, 0x061C, 0x061D, 0x06DD,
                0x070F, 0x088F, 0x0890, 0x0891, 0x0892, 0x08E2, 0x180E, 0x180D, 0x200A, 0x200B,
                0x200F, 0x2010, 0x2029, 0x202A, 0x202E, 0x202F, 0x2060, 0x2064, 0x2065, 0x2066,
                0x206F, 0x2070, 0xFEFF, 0xFFF8, 0xFFF9, 0xFFFB, 0xFFFC, 0x110BD, 0x110BE, 0x110CD,
                0x1342F, 0x13430, 0x13438, 0x13439, 0x1343F, 0x13440, 0x1BCA0, 0x1BCA3, 0x1BCA4,
                0x1D173, 0x1D17A, 0x1D17B, 0xE0000, 0xE0001, 0xE0002, 0xE001F, 0xE0020, 0xE007F,
                0xE0080)
            .mapToObj(c -> "corpus" + cp(c) + "x");
    return Stream.concat(lengthsAndSpaces, format);
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

  /**
   * A fence name is measured in characters, never compared with {@code ''} under the caller's
   * collation: with a nondeterministic one, U+034F (which such a collation ignores) would equal
   * {@code ''} and be refused as empty, a rule it does not break. The regular expressions refuse
   * such a collation outright (0A000), as they always did.
   */
  @Test
  void sqlNeverJudgesAFenceNameEmptyByTheCallersCollation() throws Exception {
    long before = sql.leaseRows();
    try (Connection c = DB.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE COLLATION IF NOT EXISTS pg_temp.ignoring"
              + " (provider = icu, locale = 'und-u-ks-level1', deterministic = false)");
      assertSqlState(
          "0A000",
          () ->
              st.executeQuery(
                  "SELECT * FROM writer_fence.acquire_lease("
                      + "chr(847) COLLATE pg_temp.ignoring, gen_random_uuid(), 'l', 30)"));
    }
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
    assertThat(candidate.codePoints().filter(c -> c >= 0xD800 && c <= 0xDFFF))
        .as("well-formed UTF-16 only: the driver would send an unpaired surrogate as '?'")
        .isEmpty();
    boolean javaName = catchThrowable(() -> FenceArguments.fenceName(candidate)) == null;
    boolean javaLabel = catchThrowable(() -> FenceArguments.holderLabel(candidate)) == null;
    boolean sqlName = sqlAccepts(candidate, "l");
    boolean sqlLabel = sqlAccepts("ok", candidate);
    assertThat(sqlName).as("SQL accepts the fence name as Java does").isEqualTo(javaName);
    assertThat(sqlLabel).as("SQL accepts the label as Java does").isEqualTo(javaLabel);
  }

  /**
   * Every code point of the BMP, of plane 1 and of the tags block, as a fence name ({@code c + "a"
   * + c}: white space at both ends) and as a label: Java's verdict and the contract's are the same.
   */
  @Test
  void javaAndSqlAgreeOnEveryCodePointOfTheBmpPlaneOneAndTheTags() throws Exception {
    List<String> names = new ArrayList<>();
    List<String> labels = new ArrayList<>();
    List<Boolean> javaVerdicts = new ArrayList<>();
    IntStream.concat(IntStream.rangeClosed(1, 0x1FFFF), IntStream.rangeClosed(0xE0000, 0xE0FFF))
        .filter(c -> c < 0xD800 || c > 0xDFFF)
        .forEach(
            c -> {
              String name = cp(c) + "a" + cp(c);
              String label = "a" + cp(c);
              names.add(name);
              labels.add(label);
              javaVerdicts.add(javaAccepts(() -> FenceArguments.fenceName(name)));
              javaVerdicts.add(javaAccepts(() -> FenceArguments.holderLabel(label)));
            });

    List<Boolean> sqlVerdicts = new ArrayList<>();
    try (Connection c = DB.dataSource().getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          // check_args' verdict, which raises the messages, and args_ok's, the fast check the
          // lease functions make first: they must agree on every value.
          "CREATE FUNCTION pg_temp.accepts(n text[], l text[]) RETURNS SETOF boolean"
              + " LANGUAGE plpgsql AS $$ DECLARE i int; v boolean; BEGIN"
              + " FOR i IN 1 .. cardinality(n) LOOP"
              + "  BEGIN PERFORM writer_fence.check_args(n[i], gen_random_uuid(), 'l', 30);"
              + "   v := true;"
              + "  EXCEPTION WHEN invalid_parameter_value THEN v := false; END;"
              + "  IF v <> writer_fence.args_ok(n[i], gen_random_uuid(), 'l', 30) THEN"
              + "   RAISE 'args_ok disagrees on fence name %', quote_literal(n[i]); END IF;"
              + "  RETURN NEXT v;"
              + "  BEGIN PERFORM writer_fence.check_args('ok', gen_random_uuid(), l[i], 30);"
              + "   v := true;"
              + "  EXCEPTION WHEN invalid_parameter_value THEN v := false; END;"
              + "  IF v <> writer_fence.args_ok('ok', gen_random_uuid(), l[i], 30) THEN"
              + "   RAISE 'args_ok disagrees on label %', quote_literal(l[i]); END IF;"
              + "  RETURN NEXT v;"
              + " END LOOP; END $$");
      try (PreparedStatement ps = c.prepareStatement("SELECT * FROM pg_temp.accepts(?, ?)")) {
        ps.setArray(1, c.createArrayOf("text", names.toArray()));
        ps.setArray(2, c.createArrayOf("text", labels.toArray()));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            sqlVerdicts.add(rs.getBoolean(1));
          }
        }
      }
    }

    assertThat(sqlVerdicts).hasSameSizeAs(javaVerdicts);
    List<String> disagreements = new ArrayList<>();
    for (int i = 0; i < javaVerdicts.size(); i++) {
      if (!javaVerdicts.get(i).equals(sqlVerdicts.get(i))) {
        String value = i % 2 == 0 ? names.get(i / 2) : labels.get(i / 2);
        disagreements.add(
            (i % 2 == 0 ? "name " : "label ")
                + String.format("U+%04X", value.codePointBefore(value.length()))
                + " java="
                + javaVerdicts.get(i));
      }
    }
    assertThat(disagreements).isEmpty();
    assertThat(javaVerdicts).contains(true, false);
  }

  @Test
  void everyFormatCharacterOfThisJvmIsRefusedAndWhiteSpaceIsWhatJavaCallsWhiteSpace() {
    for (int c = 0; c <= Character.MAX_CODE_POINT; c++) {
      if (Character.getType(c) == Character.FORMAT) {
        assertThat(FenceArguments.isFormat(c)).as("U+%04X is Cf on this JVM", c).isTrue();
      }
      if (!Character.isISOControl(c)) {
        assertThat(FenceArguments.isWhiteSpace(c))
            .as("U+%04X white space", c)
            .isEqualTo(Character.isWhitespace(c));
      }
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static String cp(int codePoint) {
    return new String(Character.toChars(codePoint));
  }

  private static boolean javaAccepts(ThrowingCallable check) {
    Throwable t = catchThrowable(check);
    if (t != null && !(t instanceof IllegalArgumentException)) {
      throw new AssertionError(t);
    }
    return t == null;
  }

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
