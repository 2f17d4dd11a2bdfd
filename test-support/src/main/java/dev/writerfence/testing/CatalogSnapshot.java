package dev.writerfence.testing;

/**
 * What PostgreSQL's catalog holds for one schema, as one text, to compare before and after an
 * operation that must change nothing: its relations and their privileges, columns, constraints and
 * indexes, its functions (signature, result, rights, settings, body, privileges) and its rows'
 * count per table. Read straight from {@code pg_catalog}, independently of the product's own
 * catalog reader.
 */
public final class CatalogSnapshot {
  private static final String SNAPSHOT =
      "SELECT coalesce(string_agg(x, E'\\n' ORDER BY x), '') FROM ("
          + " SELECT 'schema ' || nspname || ' ' || coalesce(nspacl::text, '') FROM pg_namespace"
          + "  WHERE nspname = $1"
          + " UNION ALL SELECT 'relation ' || c.relname || ' ' || c.relkind::text || ' rls '"
          + "  || c.relrowsecurity || ' ' || coalesce(c.relacl::text, '') FROM pg_class c"
          + "  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1"
          + " UNION ALL SELECT 'column ' || c.relname || '.' || a.attname || ' '"
          + "  || format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull || ' '"
          + "  || coalesce(pg_get_expr(d.adbin, d.adrelid), '') FROM pg_attribute a"
          + "  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace"
          + "  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum"
          + "  WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped"
          + " UNION ALL SELECT 'constraint ' || c.relname || ' ' || co.conname || ' '"
          + "  || pg_get_constraintdef(co.oid) FROM pg_constraint co"
          + "  JOIN pg_class c ON c.oid = co.conrelid JOIN pg_namespace n ON n.oid ="
          + "  c.relnamespace WHERE n.nspname = $1"
          + " UNION ALL SELECT 'function ' || p.proname || '(' || oidvectortypes(p.proargtypes)"
          + "  || ') ' || pg_get_function_result(p.oid) || ' ' || p.prosecdef || ' '"
          + "  || coalesce(p.proconfig::text, '') || ' ' || md5(p.prosrc) || ' '"
          + "  || coalesce(p.proacl::text, '') FROM pg_proc p JOIN pg_namespace n ON n.oid ="
          + "  p.pronamespace WHERE n.nspname = $1"
          + " UNION ALL SELECT 'rows ' || c.relname || ' ' || (xpath('/row/n/text()',"
          + "  query_to_xml(format('SELECT count(*) AS n FROM %I.%I', n.nspname, c.relname),"
          + "  false, true, '')))[1]::text FROM pg_class c JOIN pg_namespace n ON n.oid ="
          + "  c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'r'"
          + ") s(x)";

  private CatalogSnapshot() {}

  /**
   * @param db the server
   * @param schema the schema to read
   * @return one line per object, sorted; empty when the schema does not exist
   */
  public static String of(EmbeddedDatabase db, String schema) {
    return db.queryValue(
        String.class,
        SNAPSHOT.replace("$1", "?"),
        repeat(schema, SNAPSHOT.split("\\$1", -1).length - 1));
  }

  /**
   * @param db the server
   * @return the names of the scratch schemas the installer builds the shipped contract in ({@code
   *     writer_fence_shape_...}) that are visible: none, when every build was rolled back
   */
  public static String scratchSchemas(EmbeddedDatabase db) {
    return db.queryValue(
        String.class,
        "SELECT coalesce(string_agg(nspname, ', '), '') FROM pg_namespace"
            + " WHERE nspname LIKE 'writer\\_fence\\_shape\\_%'");
  }

  private static Object[] repeat(String value, int times) {
    Object[] values = new Object[times];
    java.util.Arrays.fill(values, value);
    return values;
  }
}
