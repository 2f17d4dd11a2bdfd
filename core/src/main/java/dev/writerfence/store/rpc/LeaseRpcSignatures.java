package dev.writerfence.store.rpc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks, before anything is acquired, that the deployment's two functions take the parameters the
 * {@link LeaseRpcContract} names. A misnamed release function or parameter would otherwise show
 * only after the lease is taken: the release fails and the row stays held for its whole TTL, at
 * every call.
 *
 * <p>A function fits when every parameter writer-fence passes is one of its input parameters and
 * every input parameter writer-fence may leave out has a default, as PostgreSQL resolves a call
 * with named parameters. Types are left to the call itself.
 */
final class LeaseRpcSignatures {
  private static final String CANDIDATES =
      "SELECT format('%I.%I(%s)', n.nspname, p.proname,"
          + " pg_catalog.pg_get_function_identity_arguments(p.oid)),"
          + " p.proargnames, p.proargmodes, p.pronargs, p.pronargdefaults"
          + " FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
          + " WHERE p.proname = ? AND CASE WHEN ? IS NULL"
          + " THEN n.nspname = ANY (pg_catalog.current_schemas(true)) ELSE n.nspname = ? END"
          + " ORDER BY 1";

  private LeaseRpcSignatures() {}

  /**
   * @param connection a connection of the role the store calls as
   * @param contract the names to check
   * @return empty when both functions fit; otherwise why not, naming the function, the parameter
   *     and the {@code lease-rpc.*} setting
   * @throws SQLException when the catalog cannot be read
   */
  static Optional<String> mismatch(Connection connection, LeaseRpcContract contract)
      throws SQLException {
    Map<String, String> always = new LinkedHashMap<>();
    always.put(contract.holderTokenParameter(), "lease-rpc.holder-token-parameter");
    always.put(contract.ttlParameter(), "lease-rpc.ttl-parameter");
    Map<String, String> sometimes = new LinkedHashMap<>();
    sometimes.put(contract.holderParameter(), "lease-rpc.holder-parameter");
    contract.fenceNameParameter().ifPresent(p -> always.put(p, "lease-rpc.fence-name-parameter"));
    Optional<String> acquire =
        mismatch(
            connection,
            contract.acquireFunction(),
            "lease-rpc.acquire-function",
            always,
            sometimes);
    if (acquire.isPresent()) {
      return acquire;
    }
    always.remove(contract.ttlParameter());
    return mismatch(
        connection, contract.releaseFunction(), "lease-rpc.release-function", always, sometimes);
  }

  /**
   * @param always the parameters every call passes (name to setting)
   * @param sometimes the parameters some calls pass (name to setting): present, with a default
   */
  private static Optional<String> mismatch(
      Connection connection,
      String function,
      String setting,
      Map<String, String> always,
      Map<String, String> sometimes)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    List<String> fitting = new ArrayList<>();
    for (Candidate c : candidates(connection, function)) {
      Optional<String> problem = c.problem(always, sometimes);
      if (problem.isPresent()) {
        problems.add(c.signature + ": " + problem.get());
      } else {
        fitting.add(c.signature);
      }
    }
    if (fitting.size() == 1) {
      return Optional.empty();
    }
    String why;
    if (fitting.size() > 1) {
      why = "is not unique for these parameters: " + String.join(", ", fitting);
    } else if (problems.isEmpty()) {
      why = "is not installed (no function of that name the connecting role can see)";
    } else {
      why = "does not take the configured parameters: " + String.join("; ", problems);
    }
    return Optional.of(
        "the lease-RPC function "
            + function
            + " ("
            + setting
            + ") "
            + why
            + "; check the lease-rpc.* settings against the deployment's functions. Nothing was"
            + " acquired");
  }

  private static List<Candidate> candidates(Connection connection, String function)
      throws SQLException {
    int dot = function.indexOf('.');
    String schema = dot < 0 ? null : function.substring(0, dot);
    String name = function.substring(dot + 1);
    List<Candidate> all = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(CANDIDATES)) {
      ps.setString(1, name);
      ps.setString(2, schema);
      ps.setString(3, schema);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          all.add(
              new Candidate(
                  rs.getString(1),
                  strings(rs.getArray(2)),
                  strings(rs.getArray(3)),
                  rs.getInt(4),
                  rs.getInt(5)));
        }
      }
    }
    return all;
  }

  private static List<String> strings(Array array) throws SQLException {
    List<String> out = new ArrayList<>();
    if (array != null) {
      for (Object o : (Object[]) array.getArray()) {
        out.add(String.valueOf(o));
      }
    }
    return out;
  }

  /**
   * One function of the name: its input parameters' names in order and how many of the last ones
   * have defaults.
   */
  private record Candidate(
      String signature, List<String> names, List<String> modes, int inputs, int defaults) {

    /** The input parameters' names, in order; {@code ""} for an unnamed one. */
    private List<String> inputNames() {
      List<String> in = new ArrayList<>();
      int total = modes.isEmpty() ? inputs : modes.size();
      for (int i = 0; i < total; i++) {
        String mode = modes.isEmpty() ? "i" : modes.get(i);
        if (mode.equals("i") || mode.equals("b") || mode.equals("v")) {
          in.add(i < names.size() ? names.get(i) : "");
        }
      }
      return in;
    }

    Optional<String> problem(Map<String, String> always, Map<String, String> sometimes) {
      List<String> in = inputNames();
      for (Map<String, String> passed : List.of(always, sometimes)) {
        for (Map.Entry<String, String> e : passed.entrySet()) {
          if (!in.contains(e.getKey())) {
            return Optional.of("no parameter '" + e.getKey() + "' (" + e.getValue() + ")");
          }
        }
      }
      for (int i = 0; i < in.size(); i++) {
        boolean hasDefault = i >= in.size() - defaults;
        String p = in.get(i);
        if (!hasDefault && !always.containsKey(p)) {
          String what = sometimes.containsKey(p) ? " (" + sometimes.get(p) + ")" : "";
          return Optional.of(
              "parameter '"
                  + (p.isEmpty() ? "$" + (i + 1) : p)
                  + "'"
                  + what
                  + " has no default, and writer-fence does not always pass it");
        }
      }
      return Optional.empty();
    }
  }
}
