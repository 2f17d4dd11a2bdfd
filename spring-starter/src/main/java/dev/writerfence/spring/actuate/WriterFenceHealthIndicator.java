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
 * schema present, and {@code <schema>.schema_version()} equal to {@link FenceSchema#VERSION}; for
 * the advisory-lock backend also the function {@code <schema>.next_advisory_fencing_token()} its
 * acquire takes fencing tokens from. Any of these failing is DOWN: fenced calls would then fail
 * closed.
 */
public class WriterFenceHealthIndicator extends AbstractHealthIndicator {
  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;
  private final String backend;

  /**
   * The lease row's health.
   *
   * @param dataSource where the fence's connections come from
   * @param schema the contract's schema (a checked lower-case identifier)
   * @param queryTimeoutSeconds bound of each statement
   */
  public WriterFenceHealthIndicator(DataSource dataSource, String schema, int queryTimeoutSeconds) {
    this(dataSource, schema, queryTimeoutSeconds, "lease");
  }

  /**
   * @param dataSource where the fence's connections come from
   * @param schema the contract's schema (a checked lower-case identifier)
   * @param queryTimeoutSeconds bound of each statement
   * @param backend {@code lease} or {@code advisory}, shown as a detail; {@code advisory} also
   *     checks the function its acquire takes fencing tokens from
   */
  public WriterFenceHealthIndicator(
      DataSource dataSource, String schema, int queryTimeoutSeconds, String backend) {
    super("writer-fence health check failed");
    this.dataSource = dataSource;
    this.schema = FenceSchema.checkIdentifier("schema", schema);
    this.queryTimeoutSeconds = queryTimeoutSeconds;
    this.backend = backend;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) throws SQLException {
    builder
        .withDetail("schema", schema)
        .withDetail("expectedVersion", FenceSchema.VERSION)
        .withDetail("backend", backend);
    try (Connection c = dataSource.getConnection()) {
      if (!exists(c, "to_regnamespace", schema)) {
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
      if ("advisory".equals(backend)) {
        String function = schema + ".next_advisory_fencing_token()";
        if (!exists(c, "to_regprocedure", function)) {
          builder
              .down()
              .withDetail(
                  "error",
                  "function "
                      + function
                      + " is missing: the advisory-lock backend takes its fencing tokens from it;"
                      + " install the schema again (the install is idempotent)");
          return;
        }
      }
      builder.up();
    }
  }

  /** Whether {@code lookup} ({@code to_regnamespace} or {@code to_regprocedure}) finds name. */
  private boolean exists(Connection c, String lookup, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + lookup + "(?) IS NOT NULL")) {
      ps.setQueryTimeout(queryTimeoutSeconds);
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }
}
