package dev.writerfence.store.lease;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.FenceArguments;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.SqlErrors;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.LeaseStatus;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The default backend: one row per fence name in {@code <schema>.lease}, changed only through the
 * SQL contract's functions (V1__writer_fence.sql). No state lives in a database session, so it
 * stays exact behind PgBouncer in transaction mode or any other pool.
 *
 * <p>Every call borrows a connection from the {@link DataSource}, runs one autocommit statement and
 * gives the connection back: nothing is pinned while a lease is held, and the lease is visible to
 * every other writer the moment {@link #acquire} returns. The DataSource must hand out connections
 * of its own, never one bound to the caller's open transaction.
 *
 * <p>Two stores are equal when they use the same DataSource object (identity, not {@code equals})
 * and the same schema. Stores on other DataSource objects (in any copy of core) that reach the same
 * database and schema {@linkplain #exclusionDomain() name} the same exclusion domain: they stand
 * for the same lease rows, so a fenced call nested in a hold of any of them re-enters it.
 */
public final class PgLeaseStore implements LeaseStore {
  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;
  private final String acquireSql;
  private final String renewSql;
  private final String releaseSql;
  private final String statusSql;
  private final String statusAllSql;
  private final LeaseRowDomain domain;

  /**
   * @param dataSource where connections come from; never {@code null}
   * @param schema the contract's schema, a plain lower-case SQL identifier
   * @param queryTimeout how long one statement may take before the store reports the database
   *     unavailable (JDBC's {@code Statement.setQueryTimeout}); at least 1 second, and a fraction
   *     of a second is rounded up to the next whole second, as {@link #queryTimeoutSeconds} does
   * @throws IllegalArgumentException when the schema name or timeout breaks its rule
   */
  public PgLeaseStore(DataSource dataSource, String schema, Duration queryTimeout) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = FenceSchema.checkIdentifier("schema", schema);
    this.queryTimeoutSeconds = queryTimeoutSeconds(queryTimeout);
    this.acquireSql =
        "SELECT fencing_token, acquired_at, expires_at FROM "
            + schema
            + ".acquire_lease(?, ?, ?, ?)";
    this.renewSql = "SELECT " + schema + ".renew_lease(?, ?, ?)";
    this.releaseSql = "SELECT " + schema + ".release(?, ?)";
    String columns =
        "SELECT fence_name, holder_label, fencing_token, acquired_at, expires_at, seconds_left,"
            + " state FROM "
            + schema
            + ".lease_status";
    this.statusSql = columns + " WHERE fence_name = ?";
    this.statusAllSql = columns + " ORDER BY fence_name";
    this.domain = new LeaseRowDomain(dataSource, schema, queryTimeoutSeconds);
  }

  /**
   * The query timeout in the whole seconds JDBC takes: at least 1 second, a fraction rounded up
   * (1.2 s is 2 s), at most {@link Integer#MAX_VALUE} seconds.
   *
   * @param queryTimeout the timeout
   * @return it in whole seconds, rounded up
   * @throws IllegalArgumentException naming the value when it is {@code null} or under 1 second
   */
  public static int queryTimeoutSeconds(Duration queryTimeout) {
    if (queryTimeout == null || queryTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          "writer-fence: query timeout " + queryTimeout + " is not allowed: at least 1 second");
    }
    long seconds = queryTimeout.getSeconds() + (queryTimeout.getNano() > 0 ? 1 : 0);
    return (int) Math.min(Integer.MAX_VALUE, seconds);
  }

  /**
   * @return the query timeout in whole seconds, as applied to every statement
   */
  public int queryTimeoutSeconds() {
    return queryTimeoutSeconds;
  }

  /**
   * @return the schema this store uses
   */
  public String schema() {
    return schema;
  }

  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    int ttlSeconds = FenceArguments.ttlSeconds(ttl);
    return execute(
        fenceName,
        acquireSql,
        ps -> {
          ps.setString(1, fenceName);
          ps.setObject(2, holderToken);
          ps.setString(3, holderLabel);
          ps.setInt(4, ttlSeconds);
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next()) {
              return Optional.empty();
            }
            return Optional.of(
                new Lease(
                    this, fenceName, holderToken, rs.getLong(1), instant(rs, 2), instant(rs, 3)));
          }
        });
  }

  /**
   * Calls {@code renew_lease}: the expiry of a live lease of this holder token becomes now + {@code
   * ttl} on the database clock, which shortens the lease when {@code ttl} is less than the time
   * left.
   *
   * @param ttl whole seconds from 1 to 86400
   * @return the new expiry, or empty when the lease is expired, taken over or released
   */
  private Optional<Instant> renew(String fenceName, UUID holderToken, Duration ttl) {
    int ttlSeconds = FenceArguments.ttlSeconds(ttl);
    return execute(
        fenceName,
        renewSql,
        ps -> {
          ps.setString(1, fenceName);
          ps.setObject(2, holderToken);
          ps.setInt(3, ttlSeconds);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return Optional.ofNullable(instant(rs, 1));
          }
        });
  }

  /** Calls {@code release}: frees the row only while it carries this holder token. */
  private boolean release(String fenceName, UUID holderToken) {
    return execute(
        fenceName,
        releaseSql,
        ps -> {
          ps.setString(1, fenceName);
          ps.setObject(2, holderToken);
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getBoolean(1);
          }
        });
  }

  /** A lease row this store granted: renewed and released by its fence name and holder token. */
  private record Lease(
      PgLeaseStore store,
      String fenceName,
      UUID holderToken,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt)
      implements StoreLease {
    @Override
    public Optional<Instant> renew(Duration ttl) {
      return store.renew(fenceName, holderToken, ttl);
    }

    @Override
    public boolean release() {
      return store.release(fenceName, holderToken);
    }
  }

  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    return execute(
        fenceName,
        statusSql,
        ps -> {
          ps.setString(1, fenceName);
          try (ResultSet rs = ps.executeQuery()) {
            return rs.next() ? Optional.of(status(rs)) : Optional.empty();
          }
        });
  }

  @Override
  public List<LeaseStatus> statusAll() {
    return execute(
        "*",
        statusAllSql,
        ps -> {
          List<LeaseStatus> rows = new ArrayList<>();
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              rows.add(status(rs));
            }
          }
          return rows;
        });
  }

  private static LeaseStatus status(ResultSet rs) throws SQLException {
    return new LeaseStatus(
        rs.getString(1),
        rs.getString(2),
        rs.getLong(3),
        instant(rs, 4),
        instant(rs, 5),
        rs.getBigDecimal(6),
        rs.getString(7));
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  private <T> T execute(String fenceName, String sql, Statement<T> statement) {
    try (Connection connection = dataSource.getConnection()) {
      // Our own autocommit transaction: the lease is committed, and visible to every other
      // writer, before this method returns.
      boolean autoCommit = connection.getAutoCommit();
      if (!autoCommit) {
        connection.setAutoCommit(true);
      }
      try (PreparedStatement ps = connection.prepareStatement(sql)) {
        ps.setQueryTimeout(queryTimeoutSeconds);
        return statement.run(ps);
      } finally {
        if (!autoCommit) {
          connection.setAutoCommit(false);
        }
      }
    } catch (SQLException e) {
      throw SqlErrors.classify(fenceName, schema, e);
    }
  }

  /**
   * @return {@code lease-row <system identifier>/<database>/<schema>}, asked of the database once;
   *     empty when the database could not answer (then only holds of an equal store are joined)
   */
  @Override
  public Optional<String> exclusionDomain() {
    return domain.name();
  }

  /**
   * @param other another object
   * @return {@code true} when {@code other} is a {@code PgLeaseStore} on the same DataSource object
   *     and schema (the query timeout plays no part)
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof PgLeaseStore that
        && dataSource == that.dataSource
        && schema.equals(that.schema);
  }

  @Override
  public int hashCode() {
    return 31 * System.identityHashCode(dataSource) + schema.hashCode();
  }

  @Override
  public String toString() {
    return "PgLeaseStore[schema=" + schema + "]";
  }

  @FunctionalInterface
  private interface Statement<T> {
    T run(PreparedStatement ps) throws SQLException;
  }
}
