package dev.writerfence.spring.actuate;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.advisory.AdvisoryLockStoreProvider;
import dev.writerfence.store.lease.PgLeaseStoreProvider;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The fence's health, apart from any Spring Boot health API (Spring Boot 3 and 4 keep theirs in
 * different packages; each generation's indicator adapts this): the database reachable on the
 * fence's own connections, the SQL contract's schema present, and {@code <schema>.schema_version()}
 * equal to {@link FenceSchema#VERSION}; for the advisory-lock backend also the function {@code
 * <schema>.next_advisory_fencing_token()} its acquire takes fencing tokens from. Any of these
 * failing is down: fenced calls would then fail closed. A backend that keeps no SQL contract
 * ({@code lease-rpc}, or a backend of another jar: {@link #usesContract}) is up when a connection
 * answers, whatever the contract's schema holds.
 */
public final class WriterFenceHealthCheck {
  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;
  private final String backend;

  /** The backends core keeps on the SQL contract; any other keeps its leases elsewhere. */
  private static final Set<String> CONTRACT_BACKENDS =
      Set.of(PgLeaseStoreProvider.NAME, AdvisoryLockStoreProvider.NAME);

  /**
   * The outcome of one check.
   *
   * @param up whether fenced calls can reach the contract
   * @param details in order: {@code schema}, {@code expectedVersion}, {@code backend}, then {@code
   *     version} once read and {@code error} when down; for a backend without the contract {@code
   *     backend}, then {@code error} when down
   */
  public record Outcome(boolean up, Map<String, Object> details) {
    /** Copies {@code details}. */
    public Outcome {
      details = Collections.unmodifiableMap(new LinkedHashMap<>(details));
    }

    /**
     * @return {@code UP} or {@code DOWN}, the status codes of every Spring Boot line
     */
    public String status() {
      return up ? "UP" : "DOWN";
    }
  }

  /**
   * @param dataSource where the fence's connections come from
   * @param schema the contract's schema (a checked lower-case identifier)
   * @param queryTimeoutSeconds bound of each statement
   * @param backend {@code writer-fence.backend}, shown as a detail; {@code advisory} also checks
   *     the function its acquire takes fencing tokens from, a backend without the contract ({@link
   *     #usesContract}) only that a connection answers
   * @throws IllegalArgumentException if {@code schema} is not a lower-case SQL identifier
   */
  public WriterFenceHealthCheck(
      DataSource dataSource, String schema, int queryTimeoutSeconds, String backend) {
    this.dataSource = dataSource;
    this.schema = FenceSchema.checkIdentifier("schema", schema);
    this.queryTimeoutSeconds = queryTimeoutSeconds;
    this.backend = backend;
  }

  /**
   * @param backend a value of {@code writer-fence.backend}
   * @return whether that backend keeps its leases in the SQL contract ({@code lease}, {@code
   *     advisory}), so that a missing or older contract breaks it; {@code false} for {@code
   *     lease-rpc} and any backend of another jar, which core's contract knows nothing of
   */
  public static boolean usesContract(String backend) {
    return backend != null && CONTRACT_BACKENDS.contains(backend);
  }

  /**
   * Runs the check on one connection of the fence's DataSource.
   *
   * @return up, or down with the reason under {@code error}
   * @throws SQLException if the database cannot be reached or cannot answer (down, too)
   */
  public Outcome check() throws SQLException {
    if (!usesContract(backend)) {
      return connectionAnswers();
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("schema", schema);
    details.put("expectedVersion", FenceSchema.VERSION);
    details.put("backend", backend);
    try (Connection c = dataSource.getConnection()) {
      if (!exists(c, "to_regnamespace", schema)) {
        return down(
            details,
            "schema "
                + schema
                + " is missing: install it (writer-fence.schema.initialize=true, the starter's"
                + " Flyway or Liquibase run, or the CLI's schema install)");
      }
      int version;
      try (Statement st = c.createStatement()) {
        st.setQueryTimeout(queryTimeoutSeconds);
        try (ResultSet rs = st.executeQuery("SELECT " + schema + ".schema_version()")) {
          rs.next();
          version = rs.getInt(1);
        }
      }
      details.put("version", version);
      if (version != FenceSchema.VERSION) {
        return down(
            details,
            "schema "
                + schema
                + " is at version "
                + version
                + ", this writer-fence expects "
                + FenceSchema.VERSION);
      }
      if ("advisory".equals(backend)) {
        String function = schema + ".next_advisory_fencing_token()";
        if (!exists(c, "to_regprocedure", function)) {
          return down(
              details,
              "function "
                  + function
                  + " is missing: the advisory-lock backend takes its fencing tokens from it;"
                  + " install the schema again (the install is idempotent)");
        }
      }
      return new Outcome(true, details);
    }
  }

  /** A backend without the contract: up when one of the fence's connections answers. */
  private Outcome connectionAnswers() throws SQLException {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("backend", backend);
    try (Connection c = dataSource.getConnection()) {
      if (c.isValid(queryTimeoutSeconds)) {
        return new Outcome(true, details);
      }
      return down(
          details, "the database did not answer within " + queryTimeoutSeconds + " s (isValid)");
    }
  }

  private static Outcome down(Map<String, Object> details, String error) {
    details.put("error", error);
    return new Outcome(false, details);
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
