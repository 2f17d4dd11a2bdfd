package dev.writerfence.faults;

import dev.writerfence.schema.FenceSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Storage that checks fencing tokens, as docs/fencing.md's "conditional write" does: a row per key
 * stamped with the token of its last write, and a write that lands only when the stored token is
 * not higher ({@code fencing_token <= :token}). A stale holder whose token is below the stamp is
 * refused; one whose token equals it is not, which is why a token must never be handed out twice.
 */
final class TokenCheckingTable {
  private final DataSource dataSource;
  private final String table;

  /**
   * @param dataSource where the table lives (the test's record database, which no fault touches)
   * @param table a plain lower-case table name, created if absent
   */
  TokenCheckingTable(DataSource dataSource, String table) throws SQLException {
    this.dataSource = dataSource;
    this.table = FenceSchema.checkIdentifier("table", table);
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + table
              + " (key text PRIMARY KEY, fencing_token bigint NOT NULL, writer text NOT NULL)");
    }
  }

  /**
   * Writes {@code key} under {@code token}, unless a write with a higher token came first.
   *
   * @return whether the write landed
   */
  boolean write(String key, long token, String writer) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO "
                    + table
                    + " AS t (key, fencing_token, writer) VALUES (?, ?, ?) ON CONFLICT (key) DO"
                    + " UPDATE SET fencing_token = excluded.fencing_token, writer ="
                    + " excluded.writer WHERE t.fencing_token <= excluded.fencing_token")) {
      ps.setString(1, key);
      ps.setLong(2, token);
      ps.setString(3, writer);
      return ps.executeUpdate() == 1;
    }
  }
}
