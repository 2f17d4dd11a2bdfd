package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FencingTokens;
import dev.writerfence.schema.ContractFunctions;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.CatalogSnapshot;
import dev.writerfence.testing.ContractTampering;
import dev.writerfence.testing.EmbeddedDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@code schema verify}: every check passes on a fresh install and fails on its own breakage. */
class SchemaVerifyCommandTest {
  private static final EmbeddedDatabase db = EmbeddedDatabase.get();
  private static final String APP = "cli_verify_app";

  @Test
  void aFreshInstallPassesEveryCheckIncludingTheGrantee() {
    String schema = install("cli_verify_fresh");

    Cli.Run run = verify(schema, "--grant-to", APP);

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out().lines().filter(l -> l.startsWith("FAIL"))).isEmpty();
    assertThat(run.out())
        .contains("OK    schema 'cli_verify_fresh' exists")
        .contains("OK    table cli_verify_fresh.lease exists (owner 'postgres')")
        .contains("OK    cli_verify_fresh.schema_version() is " + FenceSchema.VERSION)
        .contains("OK    cli_verify_fresh.issuing_cluster has row-level security on")
        .contains("OK    fencing tokens: this server (cluster ")
        .contains(", timeline 1) grants above every token in cli_verify_fresh.lease (none yet)")
        .contains("OK    table cli_verify_fresh.lease has no privilege for PUBLIC")
        .contains("OK    view cli_verify_fresh.lease_status has no privilege for PUBLIC")
        .contains("OK    cli_verify_fresh.lease has row-level security on")
        .contains("OK    table cli_verify_fresh.waiter has no privilege for PUBLIC")
        .contains("OK    view cli_verify_fresh.queue_status has no privilege for PUBLIC")
        .contains("OK    cli_verify_fresh.waiter has row-level security on")
        .contains("OK    role '" + APP + "' can read the view cli_verify_fresh.queue_status")
        .contains("OK    role '" + APP + "' has no privilege on the table cli_verify_fresh.waiter")
        .contains("are SECURITY DEFINER")
        .contains("has a pinned search_path")
        .contains("is executable by PUBLIC")
        .contains("OK    role '" + APP + "' has USAGE on schema 'cli_verify_fresh' and EXECUTE on")
        .contains("OK    role '" + APP + "' has no privilege on the table cli_verify_fresh.lease")
        .containsPattern("all \\d+ checks passed");
  }

  @Test
  void theLeaseRpcPairInstalledBesideTheContractLeavesVerifyPassing() {
    db.execute(
        "DO $$ BEGIN CREATE ROLE "
            + APP
            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL;"
            + " END $$");
    String schema = "cli_verify_lease_rpc";
    Cli.Run install =
        runInstall(schema, "--grant-to", APP, "--lease-rpc-fence-name", "cli_rpc_row");
    assertThat(install.exitCode()).as(install.err()).isZero();
    assertThat(install.out())
        .contains("installed the lease-RPC pair public.corpus_writer_fence_lease_acquire")
        .contains("default fence name 'cli_rpc_row'");

    Cli.Run run = verify(schema, "--grant-to", APP);
    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains(
            "INFO  the optional lease-RPC pair public.corpus_writer_fence_lease_acquire and"
                + " _release is installed by writer-fence over this schema (default fence name"
                + " 'cli_rpc_row')");

    // A leg's call as it always was, without a fence name: writer-fence's row of the default name.
    String call =
        "SELECT public.corpus_writer_fence_lease_acquire(p_holder_token =>"
            + " gen_random_uuid(), p_holder => 'ts-leg')";
    assertThat(db.queryValue(Boolean.class, call)).isTrue();
    assertThat(db.queryValue(Boolean.class, call)).as("busy is false").isFalse();
    assertThat(
            db.queryValue(
                String.class,
                "SELECT holder_label FROM " + schema + ".lease_status WHERE fence_name = ?",
                "cli_rpc_row"))
        .isEqualTo("ts-leg");
  }

  @Test
  void aBadLeaseRpcFenceNameIsNamedAndNothingIsInstalled() {
    Cli.Run run = runInstall("cli_verify_lease_rpc_bad", "--lease-rpc-fence-name", " padded ");
    assertThat(run.exitCode()).isNotZero();
    assertThat(run.err())
        .contains("--lease-rpc-fence-name: fence name ' padded ' is not allowed")
        .doesNotContain("--lease-rpc-fence-name: writer-fence:");
    assertThat(
            db.queryValue(
                Boolean.class, "SELECT to_regclass('cli_verify_lease_rpc_bad.lease') IS NULL"))
        .isTrue();
  }

  @Test
  void aLeaseRpcPairWriterFenceDidNotInstallIsRefusedAndNothingIsInstalled() {
    db.execute(
        "CREATE FUNCTION public.corpus_writer_fence_lease_release(p_token uuid, p_extra int)"
            + " RETURNS boolean LANGUAGE sql AS 'SELECT true'");
    try {
      Cli.Run run =
          runInstall("cli_verify_lease_rpc_foreign", "--lease-rpc-fence-name", "cli_rpc_row");
      assertThat(run.exitCode()).isNotZero();
      assertThat(run.err())
          .contains("public.corpus_writer_fence_lease_release(p_token uuid, p_extra integer)")
          .contains("writer-fence did not install")
          .contains("drop or rename");
      assertThat(
              db.queryValue(
                  Boolean.class,
                  "SELECT to_regclass('cli_verify_lease_rpc_foreign.lease') IS NULL"))
          .as("the contract is not installed either")
          .isTrue();
    } finally {
      db.execute("DROP FUNCTION public.corpus_writer_fence_lease_release(uuid, integer)");
    }
  }

  @Test
  void reinstallingTheLeaseRpcPairNamesTheDefaultFenceNameItReplaces() {
    String schema = "cli_verify_lease_rpc_again";
    Cli.Run first = runInstall(schema, "--lease-rpc-fence-name", "cli_rpc_first");
    assertThat(first.exitCode()).as(first.err()).isZero();
    Cli.Run again = runInstall(schema, "--lease-rpc-fence-name", "cli_rpc_second");
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.out())
        .contains(
            "replaced the lease-RPC pair writer-fence had installed before (default fence name"
                + " 'cli_rpc_first'); legs that pass no fence name now use 'cli_rpc_second'");
  }

  @Test
  void tokensOfALaterTimelineAreAWarningNotAFailure() {
    String schema = install("cli_verify_ahead");
    // Rows as a copy of a cluster on timeline 3 would bring them to this timeline-1 server.
    db.execute(
        "INSERT INTO "
            + schema
            + ".lease (fence_name, fencing_token, acquired_at, expires_at) VALUES ('copied', "
            + FencingTokens.first(3)
            + ", now(), now())");

    Cli.Run run = verify(schema);

    assertThat(run.exitCode()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains(
            "WARN  cli_verify_ahead.lease holds tokens of timeline 3, ahead of this server's"
                + " timeline 1")
        .doesNotContain("OK    fencing tokens")
        .containsPattern("all \\d+ checks passed, 1 warning");
  }

  @Test
  void aClusterNoInstallRecordedIsAWarningUntilInstalledThere() {
    String schema = install("cli_verify_restored");
    // A logical restore brings the table's rows but the cluster identity is the new one's.
    db.execute("DELETE FROM " + schema + ".issuing_cluster");

    Cli.Run restored = verify(schema);
    assertThat(restored.exitCode()).as(restored.out() + restored.err()).isZero();
    assertThat(restored.out())
        .containsPattern("WARN  cluster \\d+ is not among the 0 cluster\\(s\\) recorded in")
        .contains("logical dump");

    assertThat(runInstall(schema).exitCode()).isZero();
    assertThat(verify(schema).out())
        .doesNotContain("WARN")
        .contains("OK    fencing tokens: this server");
  }

  @Test
  void eachBreakageIsAFailNamingWhatIsWrong() {
    String schema = install("cli_verify_broken");
    db.execute(
        "GRANT SELECT ON " + schema + ".lease TO PUBLIC",
        "ALTER TABLE " + schema + ".lease DISABLE ROW LEVEL SECURITY",
        "ALTER FUNCTION " + schema + ".release(text, uuid) SECURITY INVOKER",
        "ALTER FUNCTION " + schema + ".renew(text, uuid, integer) RESET search_path",
        "GRANT EXECUTE ON FUNCTION " + schema + ".acquire(text, uuid, text, integer) TO PUBLIC",
        "CREATE OR REPLACE FUNCTION "
            + schema
            + ".schema_version() RETURNS integer LANGUAGE sql IMMUTABLE"
            + " SET search_path = pg_catalog, pg_temp AS $fn$ SELECT 1 $fn$",
        "GRANT UPDATE ON " + schema + ".lease TO " + APP,
        "REVOKE EXECUTE ON FUNCTION " + schema + ".renew_lease(text, uuid, integer) FROM " + APP);

    Cli.Run run = verify(schema, "--grant-to", APP);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(
            run.out()
                .lines()
                .filter(l -> l.startsWith("FAIL"))
                .map(l -> l.replaceAll("\\(md5 .*\\)", "(md5 ...)")))
        .containsExactly(
            "FAIL  cli_verify_broken.schema_version() is 1, this build expects "
                + FenceSchema.VERSION,
            // schema_version() answers 1: the rest is held to version 1's shape
            // version 6 rewrote this one (ADR 69): held to version 1, it differs too
            "FAIL  shape: function acquire(text, uuid, text, integer): LANGUAGE plpgsql, the"
                + " contract's is sql",
            "FAIL  shape: function acquire(text, uuid, text, integer): SET [search_path=pg_catalog,"
                + " pg_temp, lock_timeout=500ms], the contract has SET [search_path=pg_catalog,"
                + " pg_temp]",
            "FAIL  shape: function acquire(text, uuid, text, integer): another body (md5 ...)",
            "FAIL  shape: function acquire_lease(text, uuid, text, integer): another body (md5 ...)",
            // version 3 rewrote this one (ADR 47): held to version 1, it differs too
            "FAIL  shape: function next_advisory_fencing_token(): LANGUAGE plpgsql, the contract's"
                + " is sql",
            "FAIL  shape: function next_advisory_fencing_token(): another body (md5 ...)",
            "FAIL  shape: function release(text, uuid): not SECURITY DEFINER, the contract's is",
            "FAIL  shape: function release(text, uuid): another body (md5 ...)",
            "FAIL  shape: function renew(text, uuid, integer): SET [], the contract has SET"
                + " [search_path=pg_catalog, pg_temp]",
            "FAIL  table cli_verify_broken.lease is open to PUBLIC: SELECT",
            "FAIL  cli_verify_broken.lease has row-level security on",
            "FAIL  not SECURITY DEFINER: release",
            "FAIL  no pinned search_path: renew",
            "FAIL  executable by PUBLIC: acquire",
            "FAIL  role '" + APP + "' lacks EXECUTE on renew_lease",
            // SELECT comes through PUBLIC, which every role is part of
            "FAIL  role '"
                + APP
                + "' has SELECT, UPDATE on the table cli_verify_broken.lease (it must go through the"
                + " functions; is it the owner or a superuser?)");
    assertThat(run.out()).containsPattern("17 of \\d+ checks failed");
  }

  @Test
  void theFunctionsCheckedAreTheContractsWithTheirSignatures() {
    String schema = install("cli_verify_signature");
    // Same name, other arguments: not the contract's function.
    db.execute(
        "DROP FUNCTION " + schema + ".release(text, uuid)",
        "CREATE FUNCTION "
            + schema
            + ".release(p_fence_name text) RETURNS boolean LANGUAGE sql VOLATILE SECURITY DEFINER"
            + " SET search_path = pg_catalog, pg_temp AS $fn$ SELECT false $fn$",
        "REVOKE ALL ON FUNCTION " + schema + ".release(text) FROM PUBLIC");

    Cli.Run run = verify(schema, "--grant-to", APP);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out().lines().filter(l -> l.startsWith("FAIL")))
        .containsExactly(
            "FAIL  shape: function release(text): not a signature of the contract, which has"
                + " release(text, uuid)",
            "FAIL  shape: function release(text, uuid): missing",
            "FAIL  missing functions: release(text, uuid)",
            "FAIL  role '" + APP + "' lacks EXECUTE on release");
    String exist =
        ContractFunctions.all().stream()
            .map(ContractFunctions.Function::name)
            .collect(Collectors.joining(", ", "functions ", " exist"));
    assertThat(verify(install("cli_verify_fresh")).out()).contains("OK    " + exist);
  }

  @Test
  void C31_verifyNamesEachDifferenceOfShape() {
    String schema = install("cli_verify_c31");
    db.execute(
        "ALTER TABLE " + schema + ".lease DROP CONSTRAINT lease_pkey",
        "ALTER TABLE " + schema + ".lease ADD COLUMN owner_id integer NOT NULL",
        "DROP VIEW " + schema + ".lease_status",
        "ALTER TABLE " + schema + ".lease ALTER COLUMN expires_at TYPE timestamp",
        "ALTER TABLE " + schema + ".lease DROP COLUMN holder_label",
        "DROP FUNCTION " + schema + ".acquire(text, uuid, text, integer)",
        "CREATE FUNCTION "
            + schema
            + ".acquire(p_fence_name text, p_holder_token uuid, p_holder_label text,"
            + " p_ttl_seconds integer) RETURNS integer LANGUAGE sql VOLATILE SECURITY DEFINER"
            + " SET search_path = pg_catalog, pg_temp AS $fn$ SELECT 1 $fn$",
        ContractTampering.releaseThatAlwaysFrees(schema));

    Cli.Run run = verify(schema);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out().lines().filter(l -> l.startsWith("FAIL  shape: ")))
        .contains(
            "FAIL  shape: lease.fence_name: no primary key",
            "FAIL  shape: lease.holder_label: missing",
            "FAIL  shape: lease.owner_id: NOT NULL without a default, not in the contract (its"
                + " inserts would fail)",
            "FAIL  shape: lease.expires_at: timestamp without time zone, the contract has"
                + " timestamp with time zone",
            "FAIL  shape: function acquire(text, uuid, text, integer): returns integer, the"
                + " contract returns bigint")
        .anyMatch(l -> l.startsWith("FAIL  shape: function release(text, uuid): another body"));
    assertThat(verify(install("cli_verify_fresh")).out())
        .contains(
            "OK    schema 'cli_verify_fresh' has the shape of contract version "
                + FenceSchema.VERSION);
  }

  @Test
  void C31_verifyNamesAForeignFunctionWhereTheLeaseTableIsMissing() {
    String schema = "cli_verify_c31_function_only";
    db.execute(
        "DROP SCHEMA IF EXISTS " + schema + " CASCADE",
        "CREATE SCHEMA " + schema,
        "CREATE FUNCTION "
            + schema
            + ".acquire(p_fence_name text, p_holder_token uuid, p_holder_label text,"
            + " p_ttl_seconds integer) RETURNS integer LANGUAGE sql AS $fn$ SELECT 1 $fn$");

    Cli.Run run = verify(schema);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("FAIL  table " + schema + ".lease exists")
        .contains(
            "FAIL  shape: function acquire(text, uuid, text, integer): returns integer, the"
                + " contract returns bigint");
  }

  @Test
  void C31_installRefusesALeaseTableWithoutPrimaryKeyAndVerifyNamesIt() {
    String schema = "cli_verify_c31_foreign";
    db.execute(
        "DROP SCHEMA IF EXISTS " + schema + " CASCADE",
        "CREATE SCHEMA " + schema,
        "CREATE TABLE "
            + schema
            + ".lease (fence_name text, holder_token uuid, holder_label text,"
            + " fencing_token bigint NOT NULL, acquired_at timestamptz NOT NULL,"
            + " expires_at timestamptz NOT NULL)");
    String before = CatalogSnapshot.of(db, schema);

    Cli.Run install = runInstall(schema);

    assertThat(install.exitCode()).as(install.out() + install.err()).isEqualTo(1);
    assertThat(install.out()).doesNotContain("installed");
    assertThat(install.err())
        .contains("schema '" + schema + "' holds objects under the SQL contract's names")
        .contains("nothing was changed")
        .contains("lease.fence_name: no primary key");
    assertThat(CatalogSnapshot.of(db, schema)).as("nothing changed").isEqualTo(before);

    Cli.Run run = verify(schema);
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("FAIL  shape: lease.fence_name: no primary key");
  }

  @Test
  void aRoleThatMayNotCreateASchemaIsToldWhyTheShapeIsNotCompared() {
    String schema = install("cli_verify_fresh");

    Cli.Run run =
        Cli.run("schema", "verify", "--jdbc-url", db.jdbcUrl(), "--user", APP, "--schema", schema);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("FAIL  the shape of schema '" + schema + "' could not be compared")
        .contains("run verify as a role with CREATE on the database, such as the owner");
  }

  @Test
  void aNewerVersionIsNamedAndItsShapeNotCompared() {
    String schema = install("cli_verify_newer");
    int newer = FenceSchema.VERSION + 1;
    db.execute(ContractTampering.schemaVersionAnswering(schema, newer));

    Cli.Run run = verify(schema);

    assertThat(run.out())
        .contains(
            "FAIL  schema '"
                + schema
                + "' holds contract version "
                + newer
                + ", newer than this build knows: its shape is not compared")
        .doesNotContain("FAIL  shape: ");
    Cli.Run install = runInstall(schema);
    assertThat(install.exitCode()).isEqualTo(1);
    assertThat(install.err()).contains("newer than version " + (newer - 1));
  }

  @Test
  void installOverAnOlderVersionSaysItUpgraded() {
    String schema = "cli_verify_upgrade";
    db.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    db.execute(ContractTampering.version1Alone(schema));

    Cli.Run run = runInstall(schema);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out())
        .contains(
            "upgraded the SQL contract in schema '"
                + schema
                + "' from version 1 to "
                + FenceSchema.VERSION);
  }

  @Test
  void theOwnerAsGranteeFailsBecauseItCanReadTheTable() {
    String schema = install("cli_verify_fresh");

    Cli.Run run = verify(schema, "--grant-to", "postgres");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "FAIL  role 'postgres' has SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES,"
                + " TRIGGER on the table cli_verify_fresh.lease");
  }

  @Test
  void aMissingSchemaIsOneFail() {
    Cli.Run run = verify("cli_verify_never_installed");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out().lines())
        .containsExactly(
            "FAIL  schema 'cli_verify_never_installed' exists", "1 of 1 checks failed");
  }

  private static String install(String schema) {
    db.execute(
        "DO $$ BEGIN CREATE ROLE "
            + APP
            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL;"
            + " END $$");
    Cli.Run run = runInstall(schema, "--grant-to", APP);
    assertThat(run.exitCode()).as(run.err()).isZero();
    return schema;
  }

  private static Cli.Run runInstall(String schema, String... more) {
    return runOn("install", schema, more);
  }

  private static Cli.Run verify(String schema, String... more) {
    return runOn("verify", schema, more);
  }

  private static Cli.Run runOn(String subcommand, String schema, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "schema",
                subcommand,
                "--jdbc-url",
                db.jdbcUrl(),
                "--user",
                "postgres",
                "--schema",
                schema));
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }
}
