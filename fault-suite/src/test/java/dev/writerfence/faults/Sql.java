package dev.writerfence.faults;

import dev.writerfence.store.advisory.AdvisoryKeys;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/** Small SQL helpers of the fault tests, run as the superuser on a data source given. */
final class Sql {
  private Sql() {}

  /**
   * @param ds the server
   * @param fenceName a fence of the advisory backend
   * @return the server process id of the session that holds the fence's advisory lock
   */
  static int advisoryHolderPid(DataSource ds, String fenceName) throws SQLException {
    long key = AdvisoryKeys.keyOf(fenceName);
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 1 AND granted"
                    + " AND classid::bigint = ? AND objid::bigint = ?")) {
      ps.setLong(1, key >>> 32);
      ps.setLong(2, key & 0xFFFF_FFFFL);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("no session holds the advisory lock of " + fenceName);
        }
        return rs.getInt(1);
      }
    }
  }

  /**
   * Ends every server session of an application name (as the fault "the fence's connections were
   * killed").
   *
   * @return how many sessions were ended, and the database time when they were
   */
  static Terminated terminate(DataSource ds, String applicationName) throws SQLException {
    try (Connection c = ds.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 2000)), clock_timestamp()"
                    + " FROM pg_stat_activity WHERE application_name = ? AND pid <>"
                    + " pg_backend_pid()")) {
      ps.setString(1, applicationName);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new Terminated(rs.getInt(1), rs.getTimestamp(2).toInstant());
      }
    }
  }

  record Terminated(int sessions, Instant at) {}
}
