package dev.writerfence.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FencingTokens;
import dev.writerfence.testing.CatalogSnapshot;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.ContractTampering;
import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * C31: {@code install} over a schema that holds objects of another shape under the contract's names
 * refuses, names each difference, and changes nothing; over an older version it upgrades; over a
 * newer one it refuses naming both versions.
 */
class ForeignSchemaInstallTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  private final String schema = "wf_foreign_" + Math.abs(ThreadLocalRandom.current().nextInt());
  private final FenceSchema installer = FenceSchema.defaults().schema(schema);

  /** The V1 lease table's columns, without its primary key. */
  private String leaseColumns(String expiresAtType) {
    return "fence_name text, holder_token uuid, holder_label text, fencing_token bigint NOT NULL,"
        + " acquired_at timestamptz NOT NULL, expires_at "
        + expiresAtType
        + " NOT NULL";
  }

  @Test
  void C31_aLeaseTableWithoutPrimaryKeyIsRefusedAndLeftAsItIs() {
    DB.execute(
        "CREATE SCHEMA " + schema,
        "CREATE TABLE " + schema + ".lease (" + leaseColumns("timestamptz") + ")",
        "INSERT INTO " + schema + ".lease VALUES ('corpus', NULL, 'theirs', 7, now(), now())");

    assertRefusedUnchanged("lease.fence_name: no primary key");
    assertThat(DB.queryValue(Long.class, "SELECT fencing_token FROM " + schema + ".lease"))
        .as("their row stays")
        .isEqualTo(7L);
  }

  @Test
  void C31_aColumnOfAnotherTypeIsRefused() {
    DB.execute(
        "CREATE SCHEMA " + schema,
        "CREATE TABLE "
            + schema
            + ".lease ("
            + leaseColumns("timestamp")
            + ", PRIMARY KEY (fence_name))");

    assertRefusedUnchanged(
        "lease.expires_at: timestamp without time zone, the contract has timestamp with time zone");
  }

  @Test
  void C31_aMissingColumnIsRefused() {
    DB.execute(
        "CREATE SCHEMA " + schema,
        "CREATE TABLE "
            + schema
            + ".lease (fence_name text PRIMARY KEY, holder_token uuid,"
            + " fencing_token bigint NOT NULL, acquired_at timestamptz NOT NULL,"
            + " expires_at timestamptz NOT NULL)");

    assertRefusedUnchanged("lease.holder_label: missing");
  }

  @Test
  void C31_anExtraNotNullColumnWithoutDefaultIsRefused() throws SQLException {
    installer.install(DB.dataSource());
    DB.execute("ALTER TABLE " + schema + ".lease ADD COLUMN owner_id integer NOT NULL");

    assertRefusedUnchanged(
        "lease.owner_id: NOT NULL without a default, not in the contract (its inserts would"
            + " fail)");
  }

  @Test
  void C31_aFunctionWithAnotherResultTypeIsRefused() {
    DB.execute(
        "CREATE SCHEMA " + schema,
        "CREATE FUNCTION "
            + schema
            + ".acquire(p_fence_name text, p_holder_token uuid, p_holder_label text,"
            + " p_ttl_seconds integer) RETURNS integer LANGUAGE sql AS $fn$ SELECT 1 $fn$");

    assertRefusedUnchanged(
        "function acquire(text, uuid, text, integer): returns integer, the contract returns"
            + " bigint");
  }

  @Test
  void C31_aFunctionWithAnotherBodyIsRefused() throws SQLException {
    installer.install(DB.dataSource());
    DB.execute(ContractTampering.releaseThatAlwaysFrees(schema));

    assertRefusedUnchanged("function release(text, uuid): another body (md5 ");
  }

  @Test
  void C31_aTriggerOnTheLeaseTableIsRefused() throws SQLException {
    installer.install(DB.dataSource());
    // It would hand every grant fencing token 5, below every token issued before.
    DB.execute(
        "CREATE FUNCTION "
            + schema
            + ".token_five() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN"
            + " NEW.fencing_token := 5; RETURN NEW; END $fn$",
        "CREATE TRIGGER token_five BEFORE INSERT OR UPDATE ON "
            + schema
            + ".lease FOR EACH ROW EXECUTE FUNCTION "
            + schema
            + ".token_five()");

    assertRefusedUnchanged("lease: trigger token_five: CREATE TRIGGER token_five BEFORE INSERT OR");
  }

  @Test
  void C31_aRuleOnTheLeaseTableIsRefused() throws SQLException {
    installer.install(DB.dataSource());
    DB.execute("CREATE RULE keep_rows AS ON DELETE TO " + schema + ".lease DO INSTEAD NOTHING");

    assertRefusedUnchanged("lease: rule keep_rows: CREATE RULE keep_rows AS");
  }

  @Test
  void C31_anOverloadUnderAContractNameIsRefused() {
    DB.execute(
        "CREATE SCHEMA " + schema,
        "CREATE FUNCTION "
            + schema
            + ".acquire(text, uuid, text, bigint) RETURNS bigint LANGUAGE sql AS $fn$ SELECT 1::bigint $fn$");

    assertRefusedUnchanged(
        "function acquire(text, uuid, text, bigint): not a signature of the contract, which has"
            + " acquire(text, uuid, text, integer)");
  }

  @Test
  void C31_aNewerVersionIsRefusedNamingBothAndNotDowngraded() throws SQLException {
    installer.install(DB.dataSource());
    int newer = FenceSchema.VERSION + 1;
    DB.execute(ContractTampering.schemaVersionAnswering(schema, newer));

    assertRefusedUnchanged(
        "holds the SQL contract version "
            + newer
            + ", newer than version "
            + FenceSchema.VERSION
            + " that this writer-fence knows; it is left as it is (no downgrade)");
    assertThat(DB.queryValue(Integer.class, "SELECT " + schema + ".schema_version()"))
        .isEqualTo(newer);
  }

  /** Every shipped version but the newest: V1 alone, V1 and V2, ... */
  static IntStream olderVersions() {
    return IntStream.range(1, FenceSchema.MIGRATION_RESOURCES.size());
  }

  @ParameterizedTest(name = "over the first {0} migration(s)")
  @MethodSource("olderVersions")
  void C31_installingOverEachOlderVersionUpgradesKeepingRowsAndTokens(int migrations)
      throws SQLException {
    String older = schema + "_" + migrations;
    FenceSchema olderInstaller = FenceSchema.defaults().schema(older);
    for (String resource : FenceSchema.MIGRATION_RESOURCES.subList(0, migrations)) {
      DB.execute(olderInstaller.fill(FenceSchema.migrationTemplate(resource)));
    }
    ContractCalls calls = new ContractCalls(DB.dataSource(), older);
    UUID holder = UUID.randomUUID();
    // Versions 1 and 2 count each name's tokens from 1; version 3 on, from the timeline's first.
    boolean timelineTokens = migrations >= 3;
    long firstToken = timelineTokens ? FencingTokens.first(1) : 1L;
    assertThat(calls.acquire("held", holder, "old", 60)).isEqualTo(firstToken);
    long lastCycled = 0;
    for (int i = 0; i < 3; i++) {
      UUID cycle = UUID.randomUUID();
      Long cycled = calls.acquire("cycled", cycle, "old", 60);
      assertThat(cycled).isNotNull();
      lastCycled = cycled;
      assertThat(calls.release("cycled", cycle)).isTrue();
    }
    try (Connection c = DB.dataSource().getConnection()) {
      InstalledContract found = InstalledContract.inspect(c, older);
      assertThat(found.differences()).as("an older version is no foreign shape").isEmpty();
      assertThat(found.version())
          .isEqualTo(ShippedShapes.version(FenceSchema.MIGRATION_RESOURCES.get(migrations - 1)));
    }

    olderInstaller.install(DB.dataSource());

    assertThat(DB.queryValue(Integer.class, "SELECT " + older + ".schema_version()"))
        .isEqualTo(FenceSchema.VERSION);
    assertThat(calls.fencingToken("held")).isEqualTo(firstToken);
    assertThat(calls.state("held")).as("held across the upgrade").isEqualTo("held");
    assertThat(calls.acquire("held", UUID.randomUUID(), "other", 60)).as("still busy").isNull();
    assertThat(calls.renew("held", holder, 60)).as("its holder still renews it").isTrue();
    assertThat(calls.release("held", holder)).isTrue();
    assertThat(calls.acquire("cycled", UUID.randomUUID(), "new", 60))
        .as(
            timelineTokens
                ? "the next grant goes on from the timeline's counter"
                : "the next grant jumps to its timeline's first token, above every older one")
        .isEqualTo(timelineTokens ? lastCycled + 1 : FencingTokens.first(1));
  }

  @Test
  void anEmptySchemaOrAContractInstallIsNoDifference() throws SQLException {
    DB.execute("CREATE SCHEMA " + schema);
    installer.install(DB.dataSource());
    try (var c = DB.dataSource().getConnection()) {
      InstalledContract found = InstalledContract.inspect(c, schema);
      assertThat(found.differences()).isEmpty();
      assertThat(found.version()).isEqualTo(FenceSchema.VERSION);
      assertThat(found.isNewer()).isFalse();
    }
    assertThat(CatalogSnapshot.scratchSchemas(DB)).as("no scratch schema is left").isEmpty();
  }

  private void assertRefusedUnchanged(String difference) {
    String before = CatalogSnapshot.of(DB, schema);
    assertThatThrownBy(() -> installer.install(DB.dataSource()))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("schema '" + schema + "'")
        .hasMessageContaining(difference)
        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("55000"));
    assertThat(CatalogSnapshot.of(DB, schema)).as("nothing changed").isEqualTo(before);
    assertThat(CatalogSnapshot.scratchSchemas(DB)).as("no scratch schema is left").isEmpty();
  }
}
