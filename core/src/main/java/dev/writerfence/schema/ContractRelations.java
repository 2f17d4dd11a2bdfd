package dev.writerfence.schema;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The tables, views and sequences of the SQL contract as the shipped migrations create them, read
 * from the migrations themselves ({@link FenceSchema#migrationTemplate()}, every version in order),
 * as {@link ContractFunctions} reads the functions: a check of an installed contract (the CLI's
 * {@code schema verify}) has no second list to keep in step.
 *
 * <p>What the migrations promise of each kind, and a check may rely on: every table is closed to
 * all but its owner with row-level security on; every view is for operators, readable by the
 * application role; a sequence is the contract's own, used through its functions only.
 *
 * @param tables the tables, in the order the migrations create them, for example {@code lease}
 * @param views the views, in order, each granted SELECT to the application role, for example {@code
 *     lease_status}
 * @param sequences the sequences, in order, for example {@code advisory_fencing_token}
 */
public record ContractRelations(List<String> tables, List<String> views, List<String> sequences) {
  private static final String SCHEMA = Pattern.quote("${writer_fence_schema}.");
  private static final Pattern TABLE =
      Pattern.compile("CREATE TABLE (?:IF NOT EXISTS )?" + SCHEMA + "(\\w+)");
  private static final Pattern VIEW =
      Pattern.compile("CREATE (?:OR REPLACE )?VIEW " + SCHEMA + "(\\w+)");
  private static final Pattern SEQUENCE =
      Pattern.compile("CREATE SEQUENCE (?:IF NOT EXISTS )?" + SCHEMA + "(\\w+)");
  private static final Pattern ROW_SECURITY =
      Pattern.compile("ALTER TABLE " + SCHEMA + "(\\w+) ENABLE ROW LEVEL SECURITY");
  private static final Pattern SELECT_GRANT =
      Pattern.compile(
          "GRANT SELECT ON (?:TABLE )?"
              + SCHEMA
              + "(\\w+) TO "
              + Pattern.quote("${writer_fence_role}")
              + ";");

  private static final ContractRelations SHIPPED = parse(FenceSchema.migrationTemplate());

  /** Copies the lists. */
  public ContractRelations {
    tables = List.copyOf(tables);
    views = List.copyOf(views);
    sequences = List.copyOf(sequences);
  }

  /**
   * @return the tables, views and sequences of the shipped contract
   */
  public static ContractRelations shipped() {
    return SHIPPED;
  }

  /**
   * Reads the relations a migration template creates.
   *
   * @param template migrations with their placeholders unfilled, in the order they run
   * @return its tables, views and sequences, each in order of first creation
   * @throws IllegalStateException when it creates no table, a table without turning row-level
   *     security on, a view it does not grant SELECT on to the application role, or grants SELECT
   *     on what it does not create as a view
   */
  static ContractRelations parse(String template) {
    String sql =
        template
            .lines()
            .filter(line -> !line.strip().startsWith("--"))
            .collect(Collectors.joining("\n"));
    List<String> tables = names(TABLE, sql);
    if (tables.isEmpty()) {
      throw new IllegalStateException("writer-fence: the migration creates no table");
    }
    List<String> withoutRowSecurity = new ArrayList<>(tables);
    withoutRowSecurity.removeAll(names(ROW_SECURITY, sql));
    if (!withoutRowSecurity.isEmpty()) {
      throw new IllegalStateException(
          "writer-fence: the migration creates tables without row-level security: "
              + withoutRowSecurity);
    }
    List<String> views = names(VIEW, sql);
    Set<String> granted = new LinkedHashSet<>(names(SELECT_GRANT, sql));
    List<String> notGranted = views.stream().filter(v -> !granted.contains(v)).toList();
    if (!notGranted.isEmpty()) {
      throw new IllegalStateException(
          "writer-fence: the migration does not grant SELECT on its views " + notGranted);
    }
    granted.removeAll(views);
    if (!granted.isEmpty()) {
      throw new IllegalStateException(
          "writer-fence: the migration grants SELECT on what it does not create as a view: "
              + granted);
    }
    return new ContractRelations(tables, views, names(SEQUENCE, sql));
  }

  /** Each name the pattern's first group matches, once, in order of first match. */
  private static List<String> names(Pattern pattern, String sql) {
    Set<String> names = new LinkedHashSet<>();
    Matcher m = pattern.matcher(sql);
    while (m.find()) {
      names.add(m.group(1));
    }
    return List.copyOf(names);
  }
}
