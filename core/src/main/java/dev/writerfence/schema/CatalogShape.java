package dev.writerfence.schema;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What PostgreSQL's catalog says about the tables and functions of one schema: each table's columns
 * (type, NOT NULL, default), primary key and other constraints, and each function's signature,
 * result, language, rights, settings and body.
 *
 * <p>Read from {@code pg_catalog} directly, not {@code information_schema}: the latter shows only
 * what the reading role has privileges on, and the contract's tables are closed to all but their
 * owner. The schema's own name, wherever it stands as a word in a body or a constraint, is replaced
 * by {@link #SCHEMA_MARK}, so shapes read from two schemas compare equal when they differ only
 * there.
 *
 * @param tables the ordinary and partitioned tables, by name
 * @param functions the functions, by signature ({@code name(type, type)} as {@code oidvectortypes}
 *     prints the argument types, the form {@link ContractFunctions.Function#signature()} uses)
 */
record CatalogShape(Map<String, Table> tables, Map<String, Function> functions) {
  /** Stands for the schema's name in bodies and constraint definitions. */
  static final String SCHEMA_MARK = "${writer_fence_schema}";

  /**
   * @param name the column's name
   * @param type its type as {@code format_type} prints it, for example {@code timestamp with time
   *     zone}
   * @param notNull whether it is NOT NULL
   * @param hasDefault whether it has a default
   */
  record Column(String name, String type, boolean notNull, boolean hasDefault) {}

  /**
   * @param name the table's name
   * @param columns its columns in order, by name
   * @param primaryKey its primary key as {@code pg_get_constraintdef} prints it, for example {@code
   *     PRIMARY KEY (fence_name)}; {@code null} when it has none
   * @param constraints its unique, check, foreign-key and exclusion constraints, printed the same
   *     way (names left out: two equal constraints may be named differently)
   * @param triggers its triggers and rewrite rules, {@code trigger NAME: definition} or {@code rule
   *     NAME: definition}: the contract makes none, and one can change what its functions write
   */
  record Table(
      String name,
      Map<String, Column> columns,
      String primaryKey,
      List<String> constraints,
      List<String> triggers) {}

  /**
   * @param signature {@code name(type, ...)}
   * @param name the function's name
   * @param arguments its arguments with their names, {@code pg_get_function_identity_arguments}
   * @param result what it returns, {@code pg_get_function_result}, for example {@code bigint}
   * @param language for example {@code plpgsql}
   * @param securityDefiner whether it runs with its owner's rights
   * @param volatility {@code i}, {@code s} or {@code v}
   * @param settings its {@code SET} clauses, for example {@code [search_path=pg_catalog, pg_temp]}
   * @param body its source text, the schema's name replaced by {@link #SCHEMA_MARK}
   */
  record Function(
      String signature,
      String name,
      String arguments,
      String result,
      String language,
      boolean securityDefiner,
      String volatility,
      List<String> settings,
      String body) {}

  /**
   * @return whether the schema holds no table and no function
   */
  boolean isEmpty() {
    return tables.isEmpty() && functions.isEmpty();
  }

  /**
   * Reads the shape of a schema; an absent schema reads as empty.
   *
   * @param connection any role's connection
   * @param schema the schema's name, a checked identifier
   * @return its tables and functions
   * @throws SQLException when the catalog cannot be read
   */
  static CatalogShape read(Connection connection, String schema) throws SQLException {
    return new CatalogShape(tables(connection, schema), functions(connection, schema));
  }

  private static Map<String, Table> tables(Connection c, String schema) throws SQLException {
    Map<String, Map<String, Column>> columns = new LinkedHashMap<>();
    String columnSql =
        "SELECT cl.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,"
            + " a.atthasdef FROM pg_class cl JOIN pg_namespace n ON n.oid = cl.relnamespace"
            + " JOIN pg_attribute a ON a.attrelid = cl.oid AND a.attnum > 0 AND NOT a.attisdropped"
            + " WHERE n.nspname = ? AND cl.relkind IN ('r', 'p') ORDER BY cl.relname, a.attnum";
    forEachRow(
        c,
        columnSql,
        schema,
        rs -> {
          Column column =
              new Column(rs.getString(2), rs.getString(3), rs.getBoolean(4), rs.getBoolean(5));
          columns
              .computeIfAbsent(rs.getString(1), t -> new LinkedHashMap<>())
              .put(column.name(), column);
        });
    Map<String, String> primaryKeys = new LinkedHashMap<>();
    Map<String, List<String>> constraints = new LinkedHashMap<>();
    // contype 'n' (NOT NULL, PostgreSQL 18) is attnotnull already; 't' (constraint triggers) is
    // no part of a table's shape the contract creates.
    String constraintSql =
        "SELECT cl.relname, co.contype, pg_get_constraintdef(co.oid) FROM pg_constraint co"
            + " JOIN pg_class cl ON cl.oid = co.conrelid JOIN pg_namespace n ON n.oid ="
            + " cl.relnamespace WHERE n.nspname = ? AND co.contype IN ('p', 'u', 'c', 'f', 'x')"
            + " ORDER BY cl.relname, co.contype, 3";
    forEachRow(
        c,
        constraintSql,
        schema,
        rs -> {
          String definition = unqualified(rs.getString(3), schema);
          if ("p".equals(rs.getString(2))) {
            primaryKeys.put(rs.getString(1), definition);
          } else {
            constraints.computeIfAbsent(rs.getString(1), t -> new ArrayList<>()).add(definition);
          }
        });
    Map<String, List<String>> triggers = new LinkedHashMap<>();
    // A trigger or rule on a contract table rewrites what its functions write (a BEFORE UPDATE
    // trigger can set any fencing token): no part of the contract, so each is a difference.
    String triggerSql =
        "WITH ns AS (SELECT oid FROM pg_namespace WHERE nspname = ?)"
            + " SELECT cl.relname, 'trigger ' || t.tgname || ': ' || pg_get_triggerdef(t.oid)"
            + " FROM pg_trigger t JOIN pg_class cl ON cl.oid = t.tgrelid"
            + " WHERE cl.relnamespace = (SELECT oid FROM ns) AND NOT t.tgisinternal"
            + " UNION ALL SELECT cl.relname, 'rule ' || r.rulename || ': ' || pg_get_ruledef(r.oid)"
            + " FROM pg_rewrite r JOIN pg_class cl ON cl.oid = r.ev_class"
            + " WHERE cl.relnamespace = (SELECT oid FROM ns) AND cl.relkind IN ('r', 'p')"
            + " AND r.rulename <> '_RETURN' ORDER BY 1, 2";
    forEachRow(
        c,
        triggerSql,
        schema,
        rs ->
            triggers
                .computeIfAbsent(rs.getString(1), t -> new ArrayList<>())
                .add(unqualified(rs.getString(2), schema)));
    Map<String, Table> tables = new LinkedHashMap<>();
    columns.forEach(
        (name, cols) ->
            tables.put(
                name,
                new Table(
                    name,
                    cols,
                    primaryKeys.get(name),
                    List.copyOf(constraints.getOrDefault(name, List.of())),
                    List.copyOf(triggers.getOrDefault(name, List.of())))));
    return tables;
  }

  private static Map<String, Function> functions(Connection c, String schema) throws SQLException {
    String sql =
        "SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ')', p.proname,"
            + " pg_get_function_identity_arguments(p.oid), pg_get_function_result(p.oid),"
            + " l.lanname, p.prosecdef, p.provolatile, p.proconfig, p.prosrc FROM pg_proc p"
            + " JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid ="
            + " p.prolang WHERE n.nspname = ? AND p.prokind = 'f' ORDER BY 1";
    Map<String, Function> functions = new LinkedHashMap<>();
    forEachRow(
        c,
        sql,
        schema,
        rs -> {
          Array config = rs.getArray(8);
          List<String> settings =
              config == null ? List.of() : Arrays.asList((String[]) config.getArray());
          Function f =
              new Function(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getString(3),
                  unqualified(rs.getString(4), schema),
                  rs.getString(5),
                  rs.getBoolean(6),
                  rs.getString(7),
                  List.copyOf(settings),
                  unqualified(rs.getString(9), schema));
          functions.put(f.signature(), f);
        });
    return functions;
  }

  /** One row of a catalog query. */
  private interface Row {
    void accept(ResultSet rs) throws SQLException;
  }

  /** Runs a catalog query with the schema's name as its one parameter. */
  private static void forEachRow(Connection c, String sql, String schema, Row row)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          row.accept(rs);
        }
      }
    }
  }

  /**
   * The text with the schema's name marked wherever it stands as a whole word: qualifying a name
   * ({@code schema.lease}) or in a literal (the queue's notifications name their schema).
   */
  private static String unqualified(String text, String schema) {
    return text == null
        ? null
        : Pattern.compile("(?<![A-Za-z0-9_$])" + Pattern.quote(schema) + "(?![A-Za-z0-9_$])")
            .matcher(text)
            .replaceAll(Matcher.quoteReplacement(SCHEMA_MARK));
  }
}
