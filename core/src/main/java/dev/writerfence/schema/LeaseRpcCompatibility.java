package dev.writerfence.schema;

import dev.writerfence.internal.FenceArguments;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The optional lease-RPC compatibility functions (ADR 57): {@code
 * public.corpus_writer_fence_lease_acquire} and {@code _release}, with the names, parameters,
 * defaults and answers of an existing deployment's pair, over writer-fence's own contract. Writers
 * that call that pair repoint to writer-fence with no code change and then contend with Java
 * writers on the lease backend ({@code backend=lease}) for the same lease row, under the fence name
 * they pass or, when they pass none (as production callers do), the default fence name given here.
 *
 * <p>The functions live in schema {@code public}, outside the contract's schema, so {@link
 * FenceSchema}'s install and verify checks are not concerned with them. They are SECURITY INVOKER:
 * the caller needs writer-fence's own grants ({@link FenceSchema#grantTo}) and EXECUTE on these
 * two, which the installer grants to the same role. Install the contract first; re-installing
 * replaces the functions in place. A psql user runs {@link #RESOURCE} with its three placeholders
 * filled.
 *
 * <p>Functions of these names that writer-fence did not install (any signature: their {@code
 * COMMENT} does not start with {@value #MARK}) are the deployment's own pair, which its legs still
 * call: the install refuses, naming each, and changes nothing, rather than take the legs' row away
 * from under a holder or add overloads that make every call ambiguous.
 */
public final class LeaseRpcCompatibility {
  /**
   * The SQL file, with placeholders {@code ${writer_fence_schema}}, {@code ${writer_fence_role}}
   * and {@code ${lease_rpc_fence_name}}.
   */
  public static final String RESOURCE = "writer-fence/db/optional/lease_rpc_compat.sql";

  /** How the functions' {@code COMMENT} starts when writer-fence installed them. */
  public static final String MARK = "installed by writer-fence";

  private static final String DEFAULT_NAME_LABEL = "default fence name: ";

  private final FenceSchema schema;
  private final String defaultFenceName;

  /**
   * @param schema writer-fence's contract (its schema, and the role granted EXECUTE); never {@code
   *     null}
   * @param defaultFenceName the fence name a caller that passes none gets, such as {@code
   *     id138_corpus_writer_fence}; a valid fence name
   * @throws IllegalArgumentException naming the fence name when it breaks the fence-name rule
   */
  public LeaseRpcCompatibility(FenceSchema schema, String defaultFenceName) {
    this.schema = Objects.requireNonNull(schema, "schema");
    this.defaultFenceName = FenceArguments.fenceName(defaultFenceName);
  }

  /**
   * @return the SQL with every placeholder filled in
   */
  public String sql() {
    return schema
        .fill(FenceSchema.migrationTemplate(RESOURCE))
        .replace("${lease_rpc_fence_name}", defaultFenceName.replace("'", "''"));
  }

  /**
   * Installs the two functions in one transaction, after the contract itself.
   *
   * @param dataSource a connection of the role that owns the contract's schema (and may create
   *     functions in {@code public}); never {@code null}
   * @return the default fence name of the pair writer-fence had installed before and this one
   *     replaced, or empty when there was none
   * @throws SQLException SQLState 55000 naming each function with its signature when schema {@code
   *     public} has functions of these names that writer-fence did not install; or when the
   *     database refuses (the contract is not installed: SQLState 3F000 or 42883; the role does not
   *     exist: 42704); nothing is changed then
   */
  public Optional<String> install(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      return install(connection);
    }
  }

  /**
   * Installs on the given connection, in one transaction; see {@link #install(DataSource)}.
   *
   * @param connection a connection of the owning role; never {@code null}
   * @return the default fence name of the replaced pair, or empty
   * @throws SQLException as {@link #install(DataSource)}; nothing is changed then
   */
  public Optional<String> install(Connection connection) throws SQLException {
    List<Optional<String>> replaced = new ArrayList<>();
    FenceSchema.inOneTransaction(
        connection,
        st -> {
          replaced.add(requireInstallable(connection));
          st.execute(sql());
        });
    return replaced.get(0);
  }

  /**
   * Looks for functions of the pair's names in schema {@code public}, changing nothing.
   *
   * @param connection any connection to the database; never {@code null}
   * @return the default fence name of the pair writer-fence installed before, or empty when there
   *     is none
   * @throws SQLException SQLState 55000 naming each function of these names (with its signature)
   *     that writer-fence did not install, and what to do; or when the database cannot answer
   */
  public static Optional<String> requireInstallable(Connection connection) throws SQLException {
    List<String> foreign = new ArrayList<>();
    Optional<String> previous = Optional.empty();
    for (Found f : found(connection)) {
      if (!f.ours()) {
        foreign.add(f.signature());
      } else if (f.defaultFenceName().isPresent()) {
        previous = f.defaultFenceName();
      }
    }
    if (!foreign.isEmpty()) {
      throw new SQLException(
          "writer-fence: refusing to install the lease-RPC pair: schema public has functions of"
              + " these names that writer-fence did not install: "
              + String.join(", ", foreign)
              + "; nothing was changed. They are the deployment's own pair, which its legs call:"
              + " move every leg off them first (Java writers to backend=lease-rpc meanwhile),"
              + " then drop or rename them, and install again (ADR 57,"
              + " docs/adopting-beside-existing-writers.md)",
          "55000");
    }
    return previous;
  }

  /**
   * One line for {@code schema verify}, which does not check the pair (it lies outside the
   * contract's schema).
   *
   * @param connection any connection to the database; never {@code null}
   * @param contractSchema the contract's schema being verified
   * @return what stands under the pair's names in schema {@code public}; empty when nothing does
   * @throws SQLException when the catalog cannot be read
   */
  public static Optional<String> describeInstalled(Connection connection, String contractSchema)
      throws SQLException {
    List<Found> all = found(connection);
    if (all.isEmpty()) {
      return Optional.empty();
    }
    List<String> foreign = new ArrayList<>();
    for (Found f : all) {
      if (!f.ours()) {
        foreign.add(f.signature());
      }
    }
    if (!foreign.isEmpty()) {
      return Optional.of(
          "schema public has lease-RPC functions writer-fence did not install (a deployment's own"
              + " pair, not checked): "
              + String.join(", ", foreign));
    }
    Found first = all.get(0);
    boolean here = first.source().contains(" " + contractSchema + ".acquire_lease(");
    return Optional.of(
        "the optional lease-RPC pair public.corpus_writer_fence_lease_acquire and _release is"
            + " installed by writer-fence over "
            + (here ? "this schema" : "another schema")
            + first.defaultFenceName().map(n -> " (default fence name '" + n + "')").orElse("")
            + "; not part of these checks (ADR 57)");
  }

  /** The functions of the pair's names in schema {@code public}, any signature. */
  private static List<Found> found(Connection connection) throws SQLException {
    List<Found> all = new ArrayList<>();
    try (PreparedStatement ps =
            connection.prepareStatement(
                "SELECT format('public.%s(%s)', p.proname,"
                    + " pg_catalog.pg_get_function_identity_arguments(p.oid)),"
                    + " pg_catalog.obj_description(p.oid, 'pg_proc'), p.prosrc"
                    + " FROM pg_catalog.pg_proc p"
                    + " JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = 'public' AND p.proname IN"
                    + " ('corpus_writer_fence_lease_acquire', 'corpus_writer_fence_lease_release')"
                    + " ORDER BY p.proname, p.oid");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        all.add(new Found(rs.getString(1), rs.getString(2), rs.getString(3)));
      }
    }
    return all;
  }

  /** A function of the pair's names, with its comment (null when none) and body. */
  private record Found(String signature, String comment, String source) {
    boolean ours() {
      return comment != null && comment.startsWith(MARK);
    }

    Optional<String> defaultFenceName() {
      int at = comment == null ? -1 : comment.indexOf(DEFAULT_NAME_LABEL);
      return at < 0
          ? Optional.empty()
          : Optional.of(comment.substring(at + DEFAULT_NAME_LABEL.length()));
    }
  }
}
