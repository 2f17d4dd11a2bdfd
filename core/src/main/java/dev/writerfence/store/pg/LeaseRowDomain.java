package dev.writerfence.store.lease;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import javax.sql.DataSource;
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

  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;
  private volatile String name;

  LeaseRowDomain(DataSource dataSource, String schema, int queryTimeoutSeconds) {
    this.dataSource = dataSource;
    this.schema = schema;
    this.queryTimeoutSeconds = queryTimeoutSeconds;
  }

  Optional<String> name() {
    String known = name;
    if (known != null) {
      return Optional.of(known);
    }
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.setQueryTimeout(queryTimeoutSeconds);
      try (ResultSet rs =
          statement.executeQuery(
              "SELECT (SELECT system_identifier FROM pg_control_system()), current_database()")) {
        rs.next();
        known = "lease-row " + rs.getLong(1) + "/" + rs.getString(2) + "/" + schema;
      }
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
