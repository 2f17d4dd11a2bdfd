package dev.writerfence.schema;

import dev.writerfence.spi.FenceArguments;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
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
 */
public final class LeaseRpcCompatibility {
  /**
   * The SQL file, with placeholders {@code ${writer_fence_schema}}, {@code ${writer_fence_role}}
   * and {@code ${lease_rpc_fence_name}}.
   */
  public static final String RESOURCE = "writer-fence/db/optional/lease_rpc_compat.sql";

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
   * @throws SQLException when the database refuses (the contract is not installed: SQLState 3F000
   *     or 42883; the role does not exist: 42704); nothing is changed then
   */
  public void install(DataSource dataSource) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      FenceSchema.inOneTransaction(connection, st -> st.execute(sql()));
    }
  }
}
