package dev.writerfence.testing;

import dev.writerfence.schema.FenceSchema;

/**
 * Statements that leave an installed SQL contract other than the shipped one, for tests of what
 * {@code schema install} refuses and {@code schema verify} reports.
 */
public final class ContractTampering {
  private ContractTampering() {}

  /**
   * @param schema the contract's schema
   * @param version what it is to answer
   * @return a {@code CREATE OR REPLACE} of {@code schema_version()} in the contract's own form
   */
  public static String schemaVersionAnswering(String schema, int version) {
    return "CREATE OR REPLACE FUNCTION "
        + schema
        + ".schema_version() RETURNS integer LANGUAGE sql IMMUTABLE"
        + " SET search_path = pg_catalog, pg_temp AS $fn$ SELECT "
        + version
        + " $fn$";
  }

  /**
   * @param schema the contract's schema
   * @return a {@code CREATE OR REPLACE} of {@code release(text, uuid)} with the contract's header
   *     and another body
   */
  public static String releaseThatAlwaysFrees(String schema) {
    return "CREATE OR REPLACE FUNCTION "
        + schema
        + ".release(p_fence_name text, p_holder_token uuid) RETURNS boolean"
        + " LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = pg_catalog, pg_temp"
        + " SET lock_timeout = '500ms' AS $fn$ BEGIN RETURN true; END $fn$";
  }

  /**
   * @param newer the version {@link #schemaVersionAnswering} made the schema answer
   * @return what every refusal to install over it says, naming both versions
   */
  public static String newerVersionRefused(int newer) {
    return "holds the SQL contract version "
        + newer
        + ", newer than version "
        + FenceSchema.VERSION
        + " that this writer-fence knows";
  }

  /**
   * @param schema the schema to install into
   * @return the first shipped migration alone, for the installing role: contract version 1
   */
  public static String version1Alone(String schema) {
    return FenceSchema.migrationTemplate(FenceSchema.MIGRATION_RESOURCES.get(0))
        .replace("${writer_fence_schema}", schema)
        .replace("${writer_fence_role}", "CURRENT_USER");
  }
}
