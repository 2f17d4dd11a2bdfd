package dev.writerfence.spring.actuate;

import dev.writerfence.schema.FenceSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of the fence's database: reachable on the fence's own connections, the SQL contract's
 * schema present, and {@code <schema>.schema_version()} equal to {@link FenceSchema#VERSION}. Any
 * of these failing is DOWN: fenced calls would then fail closed.
 */
public class WriterFenceHealthIndicator extends AbstractHealthIndicator {
  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;

  /**
   * @param dataSource where the fence's connections come from
   * @param schema the contract's schema (a checked lower-case identifier)
   * @param queryTimeoutSeconds bound of each statement
   */
  public WriterFenceHealthIndicator(DataSource dataSource, String schema, int queryTimeoutSeconds) {
    super("writer-fence health check failed");
    this.dataSource = dataSource;
    this.schema = FenceSchema.checkIdentifier("schema", schema);
    this.queryTimeoutSeconds = queryTimeoutSeconds;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws SQLException {
    builder.withDetail("schema", schema).withDetail("expectedVersion", FenceSchema.VERSION);
    try (Connection c = dataSource.getConnection()) {
      boolean present;
      try (PreparedStatement ps = c.prepareStatement("SELECT to_regnamespace(?) IS NOT NULL")) {
        ps.setQueryTimeout(queryTimeoutSeconds);
        ps.setString(1, schema);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          present = rs.getBoolean(1);
        }
      }
      if (!present) {
        builder
            .down()
            .withDetail(
                "error",
                "schema "
                    + schema
                    + " is missing: install it (writer-fence.schema.initialize=true, Flyway with"
                    + " classpath:writer-fence/db/migration, or the CLI's schema install)");
        return;
      }
      int version;
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout(queryTimeoutSeconds);
        try (ResultSet rs = st.executeQuery("SELECT " + schema + ".schema_version()")) {
          rs.next();
          version = rs.getInt(1);
        }
      }
      builder.withDetail("version", version);
      if (version != FenceSchema.VERSION) {
        builder
            .down()
            .withDetail(
                "error",
                "schema "
                    + schema
                    + " is at version "
                    + version
                    + ", this writer-fence expects "
                    + FenceSchema.VERSION);
        return;
      }
      builder.up();
    }
  }
}
