package dev.writerfence.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the contract's tables, views and sequences are read to be from the migration is what
 * PostgreSQL has after installing it, with row-level security on every table and SELECT on every
 * view for the application role.
 */
class ContractRelationsTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final String SCHEMA = "wf_relations";
  private static final String ROLE = "wf_relations_app";

  @Test
  void theRelationsReadFromTheMigrationAreTheInstalledOnes() throws SQLException {
    DB.execute(
        "DO $$ BEGIN CREATE ROLE "
            + ROLE
            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    FenceSchema.defaults().schema(SCHEMA).grantTo(ROLE).install(DB.dataSource());
    ContractRelations shipped = ContractRelations.shipped();

    assertThat(shipped.tables()).containsExactly("lease", "waiter", "issuing_cluster");
    assertThat(shipped.views()).containsExactly("lease_status", "queue_status");
    assertThat(shipped.sequences()).containsExactly("advisory_fencing_token");
    assertThat(shipped.tables()).containsExactlyInAnyOrderElementsOf(installed("r", false));
    assertThat(shipped.views()).containsExactlyInAnyOrderElementsOf(installed("v", false));
    assertThat(shipped.sequences()).containsExactlyInAnyOrderElementsOf(installed("S", false));
    assertThat(installed("r", true)).containsExactlyInAnyOrderElementsOf(shipped.tables());
    for (String view : shipped.views()) {
      assertThat(
              DB.queryValue(
                  Boolean.class,
                  "SELECT has_table_privilege(?, to_regclass(?), 'SELECT')",
                  ROLE,
                  SCHEMA + "." + view))
          .as(view)
          .isTrue();
    }
  }

  @Test
  void aTableWithoutRowLevelSecurityIsRefused() {
    String template =
        "CREATE TABLE IF NOT EXISTS ${writer_fence_schema}.lease (a text);\n"
            + "CREATE TABLE ${writer_fence_schema}.open_table (a text);\n"
            + "ALTER TABLE ${writer_fence_schema}.lease ENABLE ROW LEVEL SECURITY;";

    assertThatThrownBy(() -> ContractRelations.parse(template))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("open_table")
        .hasMessageNotContaining("lease");
  }

  @Test
  void aViewWithoutItsGrantAndAGrantOfNoViewAreRefused() {
    String table =
        "CREATE TABLE ${writer_fence_schema}.t (a text);\n"
            + "ALTER TABLE ${writer_fence_schema}.t ENABLE ROW LEVEL SECURITY;\n";

    assertThatThrownBy(
            () ->
                ContractRelations.parse(
                    table + "CREATE OR REPLACE VIEW ${writer_fence_schema}.v AS SELECT 1;"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not grant SELECT")
        .hasMessageContaining("[v]");
    assertThatThrownBy(
            () ->
                ContractRelations.parse(
                    table + "GRANT SELECT ON ${writer_fence_schema}.t TO ${writer_fence_role};"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("does not create as a view: [t]");
  }

  @Test
  void aCommentedOutRelationIsNoRelation() {
    String template =
        "-- CREATE TABLE ${writer_fence_schema}.old (a text);\n"
            + "CREATE TABLE ${writer_fence_schema}.t (a text);\n"
            + "ALTER TABLE ${writer_fence_schema}.t ENABLE ROW LEVEL SECURITY;\n"
            + "CREATE VIEW ${writer_fence_schema}.v AS SELECT 1;\n"
            + "CREATE SEQUENCE ${writer_fence_schema}.s;\n"
            + "GRANT SELECT ON ${writer_fence_schema}.v TO ${writer_fence_role};";

    assertThat(ContractRelations.parse(template))
        .isEqualTo(new ContractRelations(List.of("t"), List.of("v"), List.of("s")));
  }

  /**
   * The names of the schema's relations of one {@code pg_class.relkind}, only those with row-level
   * security on when {@code rowSecurity}.
   */
  private static List<String> installed(String relkind, boolean rowSecurity) {
    String names =
        DB.queryValue(
            String.class,
            "SELECT coalesce(string_agg(c.relname, ',' ORDER BY c.relname), '') FROM pg_class c"
                + " JOIN pg_namespace n ON n.oid = c.relnamespace"
                + " WHERE n.nspname = ? AND c.relkind = ?::\"char\" AND (c.relrowsecurity OR NOT ?)",
            SCHEMA,
            relkind,
            rowSecurity);
    return names.isEmpty() ? List.of() : Arrays.asList(names.split(","));
  }
}
