package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.schema.ContractFunctions;
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
        .contains("OK    cli_verify_fresh.schema_version() is 2")
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
    assertThat(run.out().lines().filter(l -> l.startsWith("FAIL")))
        .containsExactly(
            "FAIL  cli_verify_broken.schema_version() is 1, this build expects 2",
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
    assertThat(run.out()).containsPattern("8 of \\d+ checks failed");
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
            "FAIL  missing functions: release(text, uuid)",
            "FAIL  role '" + APP + "' lacks EXECUTE on release");
    String exist =
        ContractFunctions.all().stream()
            .map(ContractFunctions.Function::name)
            .collect(Collectors.joining(", ", "functions ", " exist"));
    assertThat(verify(install("cli_verify_fresh")).out()).contains("OK    " + exist);
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
    Cli.Run run =
        Cli.run(
            "schema",
            "install",
            "--jdbc-url",
            db.jdbcUrl(),
            "--user",
            "postgres",
            "--schema",
            schema,
            "--grant-to",
            APP);
    assertThat(run.exitCode()).as(run.err()).isZero();
    return schema;
  }

  private static Cli.Run verify(String schema, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "schema",
                "verify",
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
