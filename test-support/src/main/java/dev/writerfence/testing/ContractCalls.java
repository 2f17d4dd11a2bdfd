package dev.writerfence.testing;

import dev.writerfence.schema.FenceSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The SQL contract called the way a psql script or a Python writer calls it: the scalar functions
 * {@code acquire}, {@code renew}, {@code release}, the queue's {@code acquire_turn}, {@code
 * enqueue} and {@code leave_queue}, and the {@code lease_status} and {@code queue_status} views of
 * one schema, each in its own autocommit statement. Errors come back as the driver's {@link
 * SQLException}.
 */
public final class ContractCalls {
  private final DataSource dataSource;
  private final String schema;

  /**
   * @param dataSource connections of the role to call as
   * @param schema the contract's schema
   */
  public ContractCalls(DataSource dataSource, String schema) {
    this.dataSource = dataSource;
    this.schema = FenceSchema.checkIdentifier("schema", schema);
  }

  /**
   * @return {@code <schema>.acquire(name, token, label, ttl)}: the fencing token, or {@code null}
   *     when busy
   */
  public Long acquire(String fenceName, UUID holderToken, String holderLabel, Integer ttlSeconds)
      throws SQLException {
    return call(
        Long.class,
        "SELECT " + schema + ".acquire(?, ?, ?, ?)",
        fenceName,
        holderToken,
        holderLabel,
        ttlSeconds);
  }

  /**
   * @return {@code <schema>.renew(name, token, ttl)}
   */
  public Boolean renew(String fenceName, UUID holderToken, Integer ttlSeconds) throws SQLException {
    return call(
        Boolean.class, "SELECT " + schema + ".renew(?, ?, ?)", fenceName, holderToken, ttlSeconds);
  }

  /**
   * @return {@code <schema>.release(name, token)}
   */
  public Boolean release(String fenceName, UUID holderToken) throws SQLException {
    return call(Boolean.class, "SELECT " + schema + ".release(?, ?)", fenceName, holderToken);
  }

  /**
   * One answer of {@code acquire_turn} or {@code enqueue}.
   *
   * @param fencingToken the new fencing token, or {@code null} when not acquired (always for
   *     enqueue)
   * @param place the ticket's place, 1 for the head; 0 when acquired
   * @param waiters the fence's live tickets (the caller's own included while it waits)
   */
  public record Turn(Long fencingToken, int place, int waiters) {
    /**
     * @return whether the lease was acquired
     */
    public boolean acquired() {
      return fencingToken != null;
    }
  }

  /**
   * @return {@code <schema>.acquire_turn(name, holder, label, ttl, waiter, priority, lapse)}
   */
  public Turn acquireTurn(
      String fenceName,
      UUID holderToken,
      String holderLabel,
      int ttlSeconds,
      UUID waiterToken,
      int priority,
      int lapseSeconds)
      throws SQLException {
    return turn(
        "SELECT fencing_token, place, waiters FROM "
            + schema
            + ".acquire_turn(?, ?, ?, ?, ?, ?, ?)",
        fenceName,
        holderToken,
        holderLabel,
        ttlSeconds,
        waiterToken,
        priority,
        lapseSeconds);
  }

  /**
   * @return {@code <schema>.acquire_turn_ms(name, holder, label, ttl, waiter, priority, lapse, head
   *     lapse)} of contract version 5: a poll that says its head lapse
   */
  public Turn acquireTurn(
      String fenceName,
      UUID holderToken,
      String holderLabel,
      long ttlMillis,
      UUID waiterToken,
      int priority,
      int lapseSeconds,
      int headLapseMillis)
      throws SQLException {
    return turn(
        "SELECT fencing_token, place, waiters FROM "
            + schema
            + ".acquire_turn_ms(?, ?, ?, ?, ?, ?, ?, ?)",
        fenceName,
        holderToken,
        holderLabel,
        ttlMillis,
        waiterToken,
        priority,
        lapseSeconds,
        headLapseMillis);
  }

  /**
   * @return {@code <schema>.enqueue(name, waiter, label, priority, lapse)}
   */
  public Turn enqueue(
      String fenceName, UUID waiterToken, String holderLabel, int priority, int lapseSeconds)
      throws SQLException {
    return turn(
        "SELECT NULL::bigint, place, waiters FROM " + schema + ".enqueue(?, ?, ?, ?, ?)",
        fenceName,
        waiterToken,
        holderLabel,
        priority,
        lapseSeconds);
  }

  /**
   * @return {@code <schema>.leave_queue(name, waiter)}
   */
  public Boolean leaveQueue(String fenceName, UUID waiterToken) throws SQLException {
    return call(Boolean.class, "SELECT " + schema + ".leave_queue(?, ?)", fenceName, waiterToken);
  }

  /**
   * @return the labels of the fence's live tickets in {@code queue_status}, head first
   */
  public List<String> queuedLabels(String fenceName) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT holder_label FROM "
                    + schema
                    + ".queue_status WHERE fence_name = ? AND state = 'waiting' ORDER BY place")) {
      ps.setString(1, fenceName);
      List<String> labels = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          labels.add(rs.getString(1));
        }
      }
      return labels;
    }
  }

  private Turn turn(String sql, Object... params) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Turn(rs.getObject(1, Long.class), rs.getInt(2), rs.getInt(3));
      }
    }
  }

  /**
   * @return the {@code state} column of {@code lease_status} for the name, or {@code null} when the
   *     name has no row
   */
  public String state(String fenceName) throws SQLException {
    return statusColumn(String.class, "state", fenceName);
  }

  /**
   * @return the {@code fencing_token} column of {@code lease_status} for the name
   */
  public Long fencingToken(String fenceName) throws SQLException {
    return statusColumn(Long.class, "fencing_token", fenceName);
  }

  /**
   * @return the {@code expires_at} column of {@code lease_status} for the name
   */
  public OffsetDateTime expiresAt(String fenceName) throws SQLException {
    return statusColumn(OffsetDateTime.class, "expires_at", fenceName);
  }

  /**
   * @return the number of rows in {@code <schema>.lease}; needs the owner's privileges
   */
  public long leaseRows() throws SQLException {
    return call(Long.class, "SELECT count(*) FROM " + schema + ".lease");
  }

  private <T> T statusColumn(Class<T> type, String column, String fenceName) throws SQLException {
    return call(
        type,
        "SELECT " + column + " FROM " + schema + ".lease_status WHERE fence_name = ?",
        fenceName);
  }

  private <T> T call(Class<T> type, String sql, Object... params) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getObject(1, type) : null;
      }
    }
  }
}
