package dev.writerfence.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the contract's functions are read to be from the migration is what PostgreSQL has after
 * installing it: the same signatures, SECURITY DEFINER, pinned search_path and EXECUTE grants.
 */
class ContractFunctionsTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final String SCHEMA = "wf_functions";
  private static final String ROLE = "wf_functions_app";

  @Test
  void theFunctionsReadFromTheMigrationAreTheInstalledOnes() throws SQLException {
    DB.execute(
        "DO $$ BEGIN CREATE ROLE "
            + ROLE
            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    FenceSchema.defaults().schema(SCHEMA).grantTo(ROLE).install(DB.dataSource());

    assertThat(ContractFunctions.all())
        .extracting(ContractFunctions.Function::signature)
        .contains("release(text, uuid)", "acquire_lease(text, uuid, text, integer)")
        .doesNotHaveDuplicates();
    assertThat(ContractFunctions.all())
        .map(ContractFunctionsTest::describe)
        .containsExactlyInAnyOrderElementsOf(installed());
  }

  @Test
  void aGrantOfAFunctionTheMigrationDoesNotCreateIsRefused() {
    String template =
        "CREATE OR REPLACE FUNCTION ${writer_fence_schema}.f(p_a text)\n"
            + "RETURNS integer LANGUAGE sql IMMUTABLE\nAS $fn$ SELECT 1 $fn$;\n"
            + "GRANT EXECUTE ON FUNCTION ${writer_fence_schema}.g(text) TO ${writer_fence_role};";

    assertThatThrownBy(() -> ContractFunctions.parse(template))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("g(text)");
  }

  @Test
  void aCommentedOutFunctionIsNoFunction() {
    String template =
        "-- CREATE OR REPLACE FUNCTION ${writer_fence_schema}.old(p_a text) AS $fn$\n"
            + "CREATE OR REPLACE FUNCTION ${writer_fence_schema}.f()\n"
            + "RETURNS integer LANGUAGE sql VOLATILE SECURITY DEFINER\n"
            + "SET search_path = pg_catalog, pg_temp\nAS $fn$ SELECT 1 $fn$;\n"
            + "GRANT EXECUTE ON FUNCTION ${writer_fence_schema}.f() TO ${writer_fence_role};";

    assertThat(ContractFunctions.parse(template))
        .containsExactly(new ContractFunctions.Function("f", List.of(), true, true, true));
  }

  @Test
  void anOutParameterIsNoPartOfTheSignature() {
    String template =
        "CREATE OR REPLACE FUNCTION ${writer_fence_schema}.f(p_a text,\n"
            + "    OUT token bigint, OUT at timestamptz)\n"
            + "LANGUAGE plpgsql VOLATILE\nAS $fn$ BEGIN token := 1; END $fn$;";

    assertThat(ContractFunctions.parse(template))
        .containsExactly(new ContractFunctions.Function("f", List.of("text"), false, false, false));
  }

  private static String describe(ContractFunctions.Function f) {
    return f.signature()
        + " definer="
        + f.securityDefiner()
        + " pinned="
        + f.pinnedSearchPath()
        + " granted="
        + f.granted();
  }

  private static List<String> installed() throws SQLException {
    List<String> found = new ArrayList<>();
    try (Connection c = DB.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ')'"
                    + " || ' definer=' || p.prosecdef"
                    + " || ' pinned=' || EXISTS (SELECT 1 FROM unnest(p.proconfig) AS cfg"
                    + "   WHERE cfg LIKE 'search\\_path=%')"
                    + " || ' granted=' || has_function_privilege(?, p.oid, 'EXECUTE')"
                    + " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = ?")) {
      ps.setString(1, ROLE);
      ps.setString(2, SCHEMA);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(rs.getString(1));
        }
      }
    }
    return found;
  }
}
