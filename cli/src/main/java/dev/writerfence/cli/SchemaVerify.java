package dev.writerfence.cli;

import dev.writerfence.schema.ContractFunctions;
import dev.writerfence.schema.ContractRelations;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.LeaseRpcCompatibility;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence schema verify}: checks that an installed SQL contract is the version this
 * build expects and that its privileges are as {@code schema install} left them (ADR 3). Every
 * check is printed as {@code OK} or {@code FAIL}; any {@code FAIL} makes the exit status 1. What an
 * operator should look at but is no failure (fencing tokens a restore may repeat, ADR 47) is
 * printed as {@code WARN}.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Check the installed SQL contract: its version, its shape (each table's columns, types,"
          + " keys and constraints, each function's signature, result, rights and body, as the"
          + " shipped migrations make them), that the lease table is closed to PUBLIC"
          + " with row-level security on, that the functions are SECURITY DEFINER with a pinned"
          + " search_path and not executable by PUBLIC, and (--grant-to) the application role's"
          + " rights.",
      "Prints OK or FAIL per check, and WARN where fencing tokens may repeat (rows restored"
          + " from a later timeline or from another cluster); exit status 1 on any FAIL, never"
          + " on a WARN. Any role with CREATE on the"
          + " database can run it: the shape is compared with the shipped contract built in a"
          + " scratch schema, rolled back."
    })
final class SchemaVerify implements Callable<Integer> {
  /**
   * The contract's functions, read from the shipped migration: the only list of their names,
   * signatures, SECURITY DEFINER, pinned search_path and EXECUTE grants.
   */
  private static final List<ContractFunctions.Function> FUNCTIONS = ContractFunctions.all();

  private static final String TABLE_PRIVILEGES =
      "SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER";

  /**
   * The contract's tables (lease rows, queued tickets, clusters that issued tokens), closed to all
   * but their owner; its views for operators, readable by the application role; its sequences. Read
   * from the shipped migration, as the functions are.
   */
  private static final ContractRelations RELATIONS = ContractRelations.shipped();

  @Spec CommandLine.Model.CommandSpec spec;

  @Mixin DatabaseOptions.RequiredUrl db;

  @Option(
      names = "--grant-to",
      paramLabel = "ROLE",
      description =
          "also check that ROLE (the role the writers connect as) has EXECUTE on the functions and"
              + " SELECT on the status view, and no privilege on the lease table or the sequence")
  String grantTo;

  private int failures;
  private int warnings;
  private int checks;
  private PrintWriter out;

  @Override
  public Integer call() throws SQLException {
    db.validate();
    out = spec.commandLine().getOut();
    String s = db.schema();
    try (Connection c = db.dataSource().getConnection()) {
      if (!check(
          exists(c, "SELECT count(*) FROM pg_namespace WHERE nspname = ?", s),
          "schema '" + s + "' exists")) {
        return done();
      }
      String owner =
          text(
              c,
              "SELECT pg_get_userbyid(c.relowner) FROM pg_class c JOIN pg_namespace n ON n.oid ="
                  + " c.relnamespace WHERE n.nspname = ? AND c.relname = 'lease'"
                  + " AND c.relkind IN ('r', 'p')",
              s);
      if (!check(
          owner != null,
          "table " + s + ".lease exists" + (owner != null ? " (owner '" + owner + "')" : ""))) {
        checkShape(c, s); // what else stands under the contract's names there
        return done();
      }
      int version = checkVersion(c, s);
      checkShape(c, s);
      if (version >= 3) {
        checkTokenEpoch(c, s);
      }
      for (String table : RELATIONS.tables()) {
        checkNoPublicPrivilege(c, s + "." + table, "table");
      }
      for (String view : RELATIONS.views()) {
        checkNoPublicPrivilege(c, s + "." + view, "view");
      }
      for (String table : RELATIONS.tables()) {
        check(
            exists(
                c,
                "SELECT count(*) FROM pg_class WHERE oid = to_regclass(?) AND relrowsecurity",
                s + "." + table),
            s + "." + table + " has row-level security on");
      }
      checkFunctions(c, s);
      if (grantTo != null) {
        checkGrantee(c, s, grantTo);
      }
      LeaseRpcCompatibility.describeInstalled(c, s).ifPresent(line -> out.println("INFO  " + line));
    }
    return done();
  }

  /**
   * The shape, compared by building the shipped contract in a scratch schema: a standby, read-only,
   * cannot build it, and holds the primary's catalog anyway.
   */
  private void checkShape(Connection c, String s) throws SQLException {
    if (exists(c, "SELECT count(*) FROM pg_is_in_recovery() r WHERE r")) {
      warn(
          "the shape of schema '"
              + s
              + "' is not compared on a standby in recovery (read-only; it has the primary's"
              + " catalog): verify the primary");
      return;
    }
    ShapeCheck.of(c, s).forEach(v -> check(v.ok(), v.what()));
  }

  private void checkTokenEpoch(Connection c, String s) {
    try {
      for (TokenEpochCheck.Finding f : TokenEpochCheck.of(c, s)) {
        if (f.warning()) {
          warn(f.what());
        } else {
          check(true, f.what());
        }
      }
    } catch (SQLException e) {
      check(false, s + ".token_epoch_status() could not be called: " + WriterFenceCli.describe(e));
    }
  }

  /**
   * @return the installed version, or 0 when it could not be read
   */
  private int checkVersion(Connection c, String s) {
    String sql = "SELECT " + s + ".schema_version()"; // a checked identifier
    try (PreparedStatement ps = c.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      int version = rs.getInt(1);
      check(
          version == FenceSchema.VERSION,
          s
              + ".schema_version() is "
              + version
              + (version == FenceSchema.VERSION
                  ? ""
                  : ", this build expects " + FenceSchema.VERSION));
      return version;
    } catch (SQLException e) {
      check(false, s + ".schema_version() could not be called: " + WriterFenceCli.describe(e));
      return 0;
    }
  }

  private void checkNoPublicPrivilege(Connection c, String relation, String kind)
      throws SQLException {
    List<String> granted = new ArrayList<>();
    for (String privilege : TABLE_PRIVILEGES.split(", ")) {
      if (exists(
          c,
          "SELECT count(*) WHERE has_table_privilege('public', to_regclass(?), '"
              + privilege
              + "')",
          relation)) {
        granted.add(privilege);
      }
    }
    check(
        granted.isEmpty(),
        kind
            + " "
            + relation
            + (granted.isEmpty()
                ? " has no privilege for PUBLIC"
                : " is open to PUBLIC: " + String.join(", ", granted)));
  }

  private void checkFunctions(Connection c, String s) throws SQLException {
    Map<String, Installed> installed = installedFunctions(c, s);
    List<String> missing = new ArrayList<>();
    List<String> notDefiner = new ArrayList<>();
    for (ContractFunctions.Function f : FUNCTIONS) {
      Installed found = installed.get(f.signature());
      if (found == null) {
        missing.add(f.signature());
      } else if (f.securityDefiner() && !found.definer()) {
        notDefiner.add(f.name());
      }
    }
    // What the contract pins must stay pinned; a function the contract leaves unpinned (an input
    // rule that PostgreSQL inlines) must not run with its owner's rights either.
    List<String> unpinned = new ArrayList<>();
    List<String> publicExecute = new ArrayList<>();
    for (Installed found : installed.values()) {
      ContractFunctions.Function f = contractFunction(found.signature());
      boolean mayBeUnpinned = f != null && !f.pinnedSearchPath() && !found.definer();
      if (!found.pinned() && !mayBeUnpinned) {
        unpinned.add(found.name());
      }
      if (found.publicExecute()) {
        publicExecute.add(found.name());
      }
    }
    check(
        missing.isEmpty(),
        missing.isEmpty()
            ? "functions " + names(FUNCTIONS, f -> true) + " exist"
            : "missing functions: " + String.join(", ", missing));
    check(
        notDefiner.isEmpty(),
        notDefiner.isEmpty()
            ? "functions "
                + names(FUNCTIONS, ContractFunctions.Function::securityDefiner)
                + " are SECURITY DEFINER"
            : "not SECURITY DEFINER: " + String.join(", ", notDefiner));
    check(
        unpinned.isEmpty(),
        unpinned.isEmpty()
            ? "every function in schema '"
                + s
                + "' but the inlined input rules ("
                + names(FUNCTIONS, f -> !f.pinnedSearchPath())
                + ", none SECURITY DEFINER) has a pinned search_path"
            : "no pinned search_path: " + String.join(", ", unpinned));
    check(
        publicExecute.isEmpty(),
        publicExecute.isEmpty()
            ? "no function in schema '" + s + "' is executable by PUBLIC"
            : "executable by PUBLIC: " + String.join(", ", publicExecute));
  }

  /** A function found in the schema, keyed by its signature. */
  private record Installed(
      String name, String signature, boolean definer, boolean pinned, boolean publicExecute) {}

  private static Map<String, Installed> installedFunctions(Connection c, String s)
      throws SQLException {
    String sql =
        "SELECT p.proname, p.proname || '(' || oidvectortypes(p.proargtypes) || ')', p.prosecdef,"
            + " EXISTS (SELECT 1 FROM unnest(p.proconfig) AS cfg WHERE cfg LIKE 'search\\_path=%'),"
            + " has_function_privilege('public', p.oid, 'EXECUTE')"
            + " FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = ?"
            + " ORDER BY p.proname, 2";
    Map<String, Installed> installed = new LinkedHashMap<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, s);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Installed found =
              new Installed(
                  rs.getString(1),
                  rs.getString(2),
                  rs.getBoolean(3),
                  rs.getBoolean(4),
                  rs.getBoolean(5));
          installed.put(found.signature(), found);
        }
      }
    }
    return installed;
  }

  private static ContractFunctions.Function contractFunction(String signature) {
    return FUNCTIONS.stream().filter(f -> f.signature().equals(signature)).findFirst().orElse(null);
  }

  private static String names(
      List<ContractFunctions.Function> functions, Predicate<ContractFunctions.Function> which) {
    return functions.stream()
        .filter(which)
        .map(ContractFunctions.Function::name)
        .collect(Collectors.joining(", "));
  }

  private void checkGrantee(Connection c, String s, String role) throws SQLException {
    if (!check(
        exists(c, "SELECT count(*) FROM pg_roles WHERE rolname = ?", role),
        "role '" + role + "' exists")) {
      return;
    }
    List<String> noExecute = new ArrayList<>();
    for (ContractFunctions.Function f : FUNCTIONS) {
      if (f.granted()
          && !exists(
              c,
              "SELECT count(*) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
                  + " WHERE n.nspname = ? AND p.proname || '(' || oidvectortypes(p.proargtypes)"
                  + " || ')' = ? AND has_function_privilege(?, p.oid, 'EXECUTE')",
              s,
              f.signature(),
              role)) {
        noExecute.add(f.name());
      }
    }
    boolean usage = exists(c, "SELECT count(*) WHERE has_schema_privilege(?, ?, 'USAGE')", role, s);
    check(
        usage && noExecute.isEmpty(),
        usage && noExecute.isEmpty()
            ? "role '"
                + role
                + "' has USAGE on schema '"
                + s
                + "' and EXECUTE on "
                + names(FUNCTIONS, ContractFunctions.Function::granted)
            : "role '"
                + role
                + "' lacks "
                + (usage ? "" : "USAGE on schema '" + s + "'" + (noExecute.isEmpty() ? "" : ", "))
                + (noExecute.isEmpty() ? "" : "EXECUTE on " + String.join(", ", noExecute)));
    for (String view : RELATIONS.views()) {
      check(
          exists(
              c,
              "SELECT count(*) WHERE has_table_privilege(?, to_regclass(?), 'SELECT')",
              role,
              s + "." + view),
          "role '" + role + "' can read the view " + s + "." + view);
    }
    for (String table : RELATIONS.tables()) {
      checkNoTablePrivilege(c, role, s + "." + table);
    }
    for (String sequence : RELATIONS.sequences()) {
      checkNoSequencePrivilege(c, role, s + "." + sequence);
    }
  }

  private void checkNoSequencePrivilege(Connection c, String role, String sequence)
      throws SQLException {
    List<String> sequencePrivileges = new ArrayList<>();
    for (String privilege : List.of("USAGE", "SELECT", "UPDATE")) {
      if (exists(
          c,
          "SELECT count(*) FROM pg_class WHERE oid = to_regclass(?)"
              + " AND has_sequence_privilege(?, oid, '"
              + privilege
              + "')",
          sequence,
          role)) {
        sequencePrivileges.add(privilege);
      }
    }
    check(
        sequencePrivileges.isEmpty(),
        sequencePrivileges.isEmpty()
            ? "role '" + role + "' has no privilege on the sequence " + sequence
            : "role '"
                + role
                + "' has "
                + String.join(", ", sequencePrivileges)
                + " on the sequence "
                + sequence);
  }

  private void checkNoTablePrivilege(Connection c, String role, String table) throws SQLException {
    List<String> tablePrivileges = new ArrayList<>();
    for (String privilege : TABLE_PRIVILEGES.split(", ")) {
      if (exists(
          c,
          "SELECT count(*) WHERE has_table_privilege(?, to_regclass(?), '" + privilege + "')",
          role,
          table)) {
        tablePrivileges.add(privilege);
      }
    }
    check(
        tablePrivileges.isEmpty(),
        tablePrivileges.isEmpty()
            ? "role '" + role + "' has no privilege on the table " + table
            : "role '"
                + role
                + "' has "
                + String.join(", ", tablePrivileges)
                + " on the table "
                + table
                + " (it must go through the functions; is it the owner or a superuser?)");
  }

  private boolean check(boolean ok, String what) {
    checks++;
    if (!ok) {
      failures++;
    }
    out.println((ok ? "OK    " : "FAIL  ") + what);
    return ok;
  }

  /** A finding that needs an operator's eye but is no failure: printed, exit status unchanged. */
  private void warn(String what) {
    warnings++;
    out.println("WARN  " + what);
  }

  private int done() {
    if (failures == 0) {
      out.printf(
          "all %d checks passed%s%n",
          checks,
          warnings == 0 ? "" : ", " + warnings + (warnings == 1 ? " warning" : " warnings"));
    } else {
      out.printf("%d of %d checks failed%n", failures, checks);
    }
    out.flush();
    return failures == 0 ? 0 : 1;
  }

  private static boolean exists(Connection c, String countSql, String... params)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(countSql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setString(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getLong(1) > 0;
      }
    }
  }

  private static String text(Connection c, String sql, String... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setString(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }
}
