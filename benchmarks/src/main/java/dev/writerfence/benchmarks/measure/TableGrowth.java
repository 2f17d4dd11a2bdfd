package dev.writerfence.benchmarks.measure;

import dev.writerfence.benchmarks.peers.Backends;
import dev.writerfence.benchmarks.peers.BenchTarget;
import dev.writerfence.benchmarks.peers.LockBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The lease table's size after many cycles on one fence name: the row is kept and updated in place
 * (release frees it, never deletes it), so the table must not grow with acquisitions.
 */
public final class TableGrowth {
  private static final String SIZE =
      "SELECT pg_total_relation_size('writer_fence.lease'),"
          + " (SELECT count(*) FROM writer_fence.lease WHERE fence_name = ?),"
          + " (SELECT fencing_token FROM writer_fence.lease WHERE fence_name = ?)";

  private TableGrowth() {}

  /**
   * @param cycles acquire + release cycles run on the one name
   * @param seconds how long they took
   * @param bytesAfterWarmUp table size (heap, index, TOAST) after the first 1,000 cycles
   * @param bytesAfter table size after all cycles
   * @param rowsForName rows the name has (1 expected)
   * @param fencingToken the name's fencing token at the end (one per acquisition)
   * @param server which server settings the cycles ran on
   */
  public record Result(
      long cycles,
      double seconds,
      long bytesAfterWarmUp,
      long bytesAfter,
      long rowsForName,
      long fencingToken,
      String server) {}

  /**
   * @param target the server
   * @param cycles cycles to run on one name (at least 1,000)
   * @param server a label of the server's settings, for the report
   * @return the sizes
   * @throws SQLException when the size cannot be read
   */
  public static Result measure(BenchTarget target, long cycles, String server) throws SQLException {
    String name = "growth-" + System.nanoTime();
    long warmUp = Math.min(1000, cycles);
    try (LockBackend lease = Backends.open(LockBackend.Kind.LEASE, target, 2);
        Connection c = DriverManager.getConnection(target.jdbcUrl(), "postgres", null)) {
      for (long i = 0; i < warmUp; i++) {
        lease.cycle(name, () -> {});
      }
      long before = size(c, name)[0];
      long start = System.nanoTime();
      for (long i = warmUp; i < cycles; i++) {
        lease.cycle(name, () -> {});
      }
      double seconds = (System.nanoTime() - start) / 1e9;
      long[] after = size(c, name);
      return new Result(cycles, seconds, before, after[0], after[1], after[2], server);
    }
  }

  private static long[] size(Connection c, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(SIZE)) {
      ps.setString(1, name);
      ps.setString(2, name);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
      }
    }
  }
}
