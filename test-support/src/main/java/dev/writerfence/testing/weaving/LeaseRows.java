package dev.writerfence.testing.weaving;

import dev.writerfence.FencingTokens;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The lease rows as the database has them, read and written with the SQL contract's own functions,
 * so the expectations judge what the fence did in the database, not what the advice says it did.
 */
final class LeaseRows {
  /** One row of {@code lease_status}. */
  record Row(String holderLabel, long fencingToken, String state) {
    boolean held() {
      return state.equals("held");
    }

    /** The grants of the name so far on this timeline: the fencing token's counter (ADR 47). */
    long grants() {
      return FencingTokens.counter(fencingToken);
    }
  }

  private final DataSource dataSource;
  private final String schema;

  LeaseRows(DataSource dataSource, String schema) {
    this.dataSource = dataSource;
    this.schema = schema;
  }

  /**
   * Takes the lease as a writer that is not this thread, nor any fence of this JVM, would.
   *
   * @return the holder token, to give it back with {@link #release}
   */
  UUID holdAsAnotherWriter(String fenceName) {
    return tryHoldAsAnotherWriter(fenceName)
        .orElseThrow(() -> new IllegalStateException("fence '" + fenceName + "' is busy already"));
  }

  /**
   * Tries once to take the lease as another writer would.
   *
   * @return the holder token when it was free, to give it back with {@link #release}; empty when
   *     busy
   */
  Optional<UUID> tryHoldAsAnotherWriter(String fenceName) {
    UUID token = UUID.randomUUID();
    Long fencingToken =
        query(
            "SELECT " + schema + ".acquire(?, ?::uuid, 'another-writer', 60)",
            fenceName,
            token.toString());
    return fencingToken == null ? Optional.empty() : Optional.of(token);
  }

  /**
   * Takes a held lease over behind its holder's back, as a writer would whose clock let it take the
   * row: the holder's next renewal finds another holder token and the lease lost.
   *
   * @return the new holder token, to give the row back with {@link #release}
   */
  UUID takeOver(String fenceName) {
    UUID token = UUID.randomUUID();
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "UPDATE "
                    + schema
                    + ".lease SET holder_token = ?::uuid, holder_label = 'another-writer'"
                    + " WHERE fence_name = ?")) {
      s.setString(1, token.toString());
      s.setString(2, fenceName);
      if (s.executeUpdate() != 1) {
        throw new IllegalStateException("fence '" + fenceName + "' has no row to take over");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot take over the lease row of '" + fenceName + "'", e);
    }
    return token;
  }

  void release(String fenceName, UUID holderToken) {
    query(
        "SELECT " + schema + ".release(?, ?::uuid)::int::bigint",
        fenceName,
        holderToken.toString());
  }

  Optional<Row> row(String fenceName) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT holder_label, fencing_token, state FROM "
                    + schema
                    + ".lease_status WHERE fence_name = ?")) {
      s.setString(1, fenceName);
      try (ResultSet r = s.executeQuery()) {
        return r.next()
            ? Optional.of(new Row(r.getString(1), r.getLong(2), r.getString(3)))
            : Optional.empty();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the lease row of '" + fenceName + "'", e);
    }
  }

  /** One waiting ticket of {@code queue_status}. */
  record Ticket(String holderLabel, int priority) {}

  /**
   * @return the waiting (not lapsed) tickets of the fence name, in their place order
   */
  List<Ticket> queue(String fenceName) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT holder_label, priority FROM "
                    + schema
                    + ".queue_status WHERE fence_name = ? AND state = 'waiting' ORDER BY place")) {
      s.setString(1, fenceName);
      List<Ticket> tickets = new ArrayList<>();
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          tickets.add(new Ticket(r.getString(1), r.getInt(2)));
        }
      }
      return tickets;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the queue of '" + fenceName + "'", e);
    }
  }

  /**
   * @return how many fence names were ever acquired in this schema
   */
  long count() {
    return query("SELECT count(*) FROM " + schema + ".lease_status");
  }

  private Long query(String sql, String... params) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        s.setString(i + 1, params[i]);
      }
      try (ResultSet r = s.executeQuery()) {
        r.next();
        long value = r.getLong(1);
        return r.wasNull() ? null : value;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run " + sql, e);
    }
  }
}
