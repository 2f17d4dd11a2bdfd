package dev.writerfence.cli;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The fencing-token check of {@code schema verify} (ADR 47): whether this server's next grants are
 * above every token the lease table holds. The epoch (the server's timeline) sees promotions and
 * point-in-time recoveries; it cannot see a data directory copied without recovery or a logical
 * dump restored into a new cluster. Those two leave traces that this check reports as warnings:
 * tokens of a later timeline than the server's, or a cluster that no install recorded.
 */
final class TokenEpochCheck {
  /**
   * One line of the report.
   *
   * @param warning whether it is a warning (printed as WARN, not counted as a failure)
   * @param what what was found
   */
  record Finding(boolean warning, String what) {}

  private TokenEpochCheck() {}

  /**
   * @param c any connection that may call the contract's granted functions
   * @param s the contract's schema (a checked identifier)
   * @return one line when all is well, otherwise one warning per trace found; never empty
   * @throws SQLException when {@code token_epoch_status()} cannot be called (the contract is older
   *     than version 3: the version check has said so already)
   */
  static List<Finding> of(Connection c, String s) throws SQLException {
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT timeline, system_identifier, cluster_recorded, recorded_clusters,"
                    + " highest_epoch FROM "
                    + s
                    + ".token_epoch_status()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      long timeline = rs.getLong(1);
      boolean standby = rs.wasNull();
      long system = rs.getLong(2);
      boolean recorded = rs.getBoolean(3);
      int clusters = rs.getInt(4);
      long highest = rs.getLong(5);
      boolean empty = rs.wasNull();
      return findings(s, standby, timeline, system, recorded, clusters, empty ? null : highest);
    }
  }

  private static List<Finding> findings(
      String s,
      boolean standby,
      long timeline,
      long system,
      boolean recorded,
      int clusters,
      Long highest) {
    List<Finding> found = new ArrayList<>();
    if (standby) {
      found.add(
          new Finding(
              true,
              "this server is a standby in recovery: it grants no lease; verify the primary"));
      return found;
    }
    if (!recorded) {
      found.add(
          new Finding(
              true,
              "cluster "
                  + system
                  + " is not among the "
                  + clusters
                  + " cluster(s) recorded in "
                  + s
                  + ".issuing_cluster: were these rows restored from a logical dump? Grants that"
                  + " the original cluster made after the dump may be issued again. Run schema"
                  + " install here once you have checked, to record this cluster"));
    }
    if (highest != null && highest > timeline) {
      found.add(
          new Finding(
              true,
              s
                  + ".lease holds tokens of timeline "
                  + highest
                  + ", ahead of this server's timeline "
                  + timeline
                  + ": were these rows copied from a later timeline (a restore without"
                  + " recovery)? Tokens still rise per fence name, but grants made on the"
                  + " original after the copy may be issued again, and so may grants a failover"
                  + " loses until this server's timeline passes "
                  + highest));
    }
    if (found.isEmpty()) {
      found.add(
          new Finding(
              false,
              "fencing tokens: this server (cluster "
                  + system
                  + ", timeline "
                  + timeline
                  + ") grants above every token in "
                  + s
                  + ".lease"
                  + (highest == null ? " (none yet)" : " (highest of timeline " + highest + ")")));
    }
    return found;
  }
}
