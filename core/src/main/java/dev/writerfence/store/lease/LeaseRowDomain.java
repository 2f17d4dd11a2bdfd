package dev.writerfence.store.lease;

import dev.writerfence.store.jdbc.Statements;
import java.sql.SQLException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exclusion domain of a lease-row store as a name: the database cluster's system identifier,
 * the database and the schema, so two stores reach the same lease rows exactly when they name the
 * same domain, whatever DataSource object, pool or copy of core each uses (PgBouncer in between
 * included). Asked of the database once, the first time a hold of another store is compared; a
 * failure is not remembered, and names no domain (the hold is then not joined: fail closed).
 */
final class LeaseRowDomain {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRowDomain.class);

  private final Statements statements;
  private final String schema;
  private volatile String name;

  LeaseRowDomain(Statements statements, String schema) {
    this.statements = statements;
    this.schema = schema;
  }

  Optional<String> name() {
    String known = name;
    if (known != null) {
      return Optional.of(known);
    }
    try {
      known =
          statements.query(
              "SELECT (SELECT system_identifier FROM pg_control_system()), current_database()",
              rs -> {
                rs.next();
                return "lease-row " + rs.getLong(1) + "/" + rs.getString(2) + "/" + schema;
              });
      name = known;
      return Optional.of(known);
    } catch (SQLException e) {
      LOG.debug(
          "writer-fence: cannot name the lease store's database; holds of other stores are"
              + " not joined",
          e);
      return Optional.empty();
    }
  }
}
