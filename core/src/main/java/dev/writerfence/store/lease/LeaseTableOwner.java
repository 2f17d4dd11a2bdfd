package dev.writerfence.store.lease;

import dev.writerfence.LeaseStatus;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.jdbc.Statements;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The lease table as its owner reaches it, for the one thing the SQL contract's functions do not
 * offer: clearing a lease whose holder is gone ({@code writer-fence release --force}). There is no
 * force-release function by design (ADR 3): no application role, which may only EXECUTE the
 * functions, can take a lease from its holder; the table itself is closed to every role but its
 * owner (row-level security on, no policies). So these statements read and change the table
 * directly, and only its owner (or a member of the owning role, or a superuser) gets anywhere with
 * them. Writers never use this class; {@link PgLeaseStore} changes rows only through the functions.
 *
 * <p>One connection for the whole conversation (the owner check, the row shown to the operator, the
 * clear), closed by {@link #close()}. Failures are the driver's own {@link SQLException}s,
 * unsorted: an operator's command prints the database's message as it is. Not thread-safe.
 */
public final class LeaseTableOwner implements AutoCloseable {
  private final Connection connection;
  private final Statements statements;
  private final String schema;

  /**
   * Who connected, and whether that role may change the lease table's rows.
   *
   * @param role the connected role ({@code current_user})
   * @param owner the role that owns {@code <schema>.lease}
   * @param owns whether {@code role} has the owner's privileges (it is the owner, a member of the
   *     owning role, or a superuser)
   */
  public record Ownership(String role, String owner, boolean owns) {}

  private LeaseTableOwner(Connection connection, Statements statements, String schema) {
    this.connection = connection;
    this.statements = statements;
    this.schema = schema;
  }

  /**
   * Opens one connection of {@code dataSource} for an operator's conversation with the lease table.
   *
   * @param dataSource connections of the role that owns the lease table; never {@code null}
   * @param schema the contract's schema, a plain lower-case SQL identifier
   * @param queryTimeout how long one statement may take; at least 1 s, rounded up to whole seconds
   *     ({@link PgLeaseStore#queryTimeoutSeconds(Duration)})
   * @return the open conversation; close it
   * @throws IllegalArgumentException when the schema name or the timeout breaks its rule
   * @throws SQLException when no connection can be had
   */
  public static LeaseTableOwner open(DataSource dataSource, String schema, Duration queryTimeout)
      throws SQLException {
    FenceSchema.checkIdentifier("schema", schema);
    Statements statements =
        new Statements(dataSource, schema, PgLeaseStore.queryTimeoutSeconds(queryTimeout));
    return new LeaseTableOwner(dataSource.getConnection(), statements, schema);
  }

  /**
   * @return who is connected and whether that role owns {@code <schema>.lease}; empty when the
   *     schema has no lease table (the contract is not installed)
   * @throws SQLException when the catalog cannot be read
   */
  public Optional<Ownership> ownership() throws SQLException {
    return statements.query(
        connection,
        "SELECT current_user, pg_get_userbyid(c.relowner),"
            + " pg_has_role(current_user, c.relowner, 'USAGE')"
            + " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            + " WHERE n.nspname = ? AND c.relname = 'lease' AND c.relkind IN ('r', 'p')",
        rs ->
            rs.next()
                ? Optional.of(new Ownership(rs.getString(1), rs.getString(2), rs.getBoolean(3)))
                : Optional.empty(),
        schema);
  }

  /**
   * A fence's lease row as its owner sees it, computed as the {@code lease_status} view computes
   * it, with the database clock of the statement that read it.
   *
   * @param fenceName the fence name
   * @return the row (state {@code held}, {@code expired} or {@code free}; for a free row, {@code
   *     expiresAt} is when it was released) and the database time; empty when no fence of that name
   *     was ever acquired
   * @throws SQLException when the table cannot be read (SQLState 42501 for a role that is not its
   *     owner)
   */
  public Optional<Clocked<LeaseStatus>> row(String fenceName) throws SQLException {
    // schema is a checked identifier, safe in a statement
    String sql =
        "SELECT holder_label, fencing_token, acquired_at, expires_at,"
            + " CASE WHEN holder_token IS NOT NULL AND expires_at > t.now"
            + " THEN round(extract(epoch FROM expires_at - t.now), 3) ELSE 0 END AS seconds_left,"
            + " CASE WHEN holder_token IS NULL THEN 'free' WHEN expires_at > t.now THEN 'held'"
            + " ELSE 'expired' END AS state, t.now"
            + " FROM (SELECT clock_timestamp() AS now) t, "
            + schema
            + ".lease WHERE fence_name = ?";
    return statements.query(
        connection,
        sql,
        rs -> {
          if (!rs.next()) {
            return Optional.empty();
          }
          LeaseStatus status =
              new LeaseStatus(
                  fenceName,
                  rs.getString("holder_label"),
                  rs.getLong("fencing_token"),
                  instant(rs, "acquired_at"),
                  instant(rs, "expires_at"),
                  rs.getBigDecimal("seconds_left"),
                  rs.getString("state"));
          return Optional.of(new Clocked<>(status, instant(rs, "now")));
        },
        fenceName);
  }

  /**
   * Frees the row as {@code release} does: no holder token, expiry at the latest now, fencing token
   * kept, so the next acquire gets a higher one. Only the lease that was shown is cleared: a row
   * whose fencing token changed meanwhile (a takeover, a release and a new acquire) is left alone.
   * Runs in a transaction of its own that waits at most 5 s for the row's lock.
   *
   * @param fenceName the fence name
   * @param fencingToken the fencing token of the lease that was shown
   * @return whether that lease was cleared; {@code false} when the row is free or holds another
   *     lease now
   * @throws SQLException when the row cannot be changed (SQLState 42501 for a role that is not its
   *     owner, 55P03 when its lock was not had within 5 s); the transaction is rolled back
   */
  public boolean clear(String fenceName, long fencingToken) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try {
      try (Statement st = connection.createStatement()) {
        st.execute("SET LOCAL lock_timeout = '5s'");
      }
      int updated;
      try (PreparedStatement ps =
          statements.prepare(
              connection,
              "UPDATE "
                  + schema
                  + ".lease SET holder_token = NULL,"
                  + " expires_at = least(expires_at, clock_timestamp())"
                  + " WHERE fence_name = ? AND fencing_token = ? AND holder_token IS NOT NULL")) {
        ps.setString(1, fenceName);
        ps.setLong(2, fencingToken);
        updated = ps.executeUpdate();
      }
      connection.commit();
      return updated == 1;
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /**
   * Closes the connection.
   *
   * @throws SQLException when closing fails
   */
  @Override
  public void close() throws SQLException {
    connection.close();
  }

  private static Instant instant(ResultSet rs, String column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }
}
