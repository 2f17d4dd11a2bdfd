package dev.writerfence.cli;

import dev.writerfence.schema.InstalledContract;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The shape checks of {@code schema verify}: every table and function under the contract's names as
 * the shipped migrations make them (ADR 50), one verdict per difference. The comparison builds the
 * shipped contract in a scratch schema and rolls it back, so it changes nothing.
 */
final class ShapeCheck {
  /**
   * One line of the report.
   *
   * @param ok whether it passed
   * @param what what was checked, or what differs
   */
  record Verdict(boolean ok, String what) {}

  private ShapeCheck() {}

  /**
   * @param c a connection of a role with CREATE on the database
   * @param s the contract's schema
   * @return one passing verdict, or one failing verdict per difference (or for why the shape could
   *     not be compared); never empty
   */
  static List<Verdict> of(Connection c, String s) {
    InstalledContract found;
    try {
      found = InstalledContract.inspect(c, s);
    } catch (SQLException e) {
      return List.of(
          new Verdict(
              false,
              "the shape of schema '"
                  + s
                  + "' could not be compared with the shipped contract: "
                  + WriterFenceCli.describe(e)
                  + ("42501".equals(e.getSQLState())
                      ? " (the comparison builds the shipped contract in a scratch schema and"
                          + " rolls it back: run verify as a role with CREATE on the database,"
                          + " such as the owner)"
                      : "")));
    }
    if (found.isEmpty()) {
      return List.of(
          new Verdict(
              false,
              "schema '" + s + "' holds no table or function of the contract: run schema install"));
    }
    if (found.isNewer()) {
      return List.of(
          new Verdict(
              false,
              "schema '"
                  + s
                  + "' holds contract version "
                  + found.version()
                  + ", newer than this build knows: its shape is not compared"));
    }
    if (found.differences().isEmpty()) {
      return List.of(
          new Verdict(
              true,
              "schema '"
                  + s
                  + "' has the shape of contract version "
                  + found.version()
                  + " (columns, types, NOT NULL, keys and constraints; function signatures,"
                  + " results, rights, settings and bodies)"));
    }
    return found.differences().stream().map(d -> new Verdict(false, "shape: " + d)).toList();
  }
}
