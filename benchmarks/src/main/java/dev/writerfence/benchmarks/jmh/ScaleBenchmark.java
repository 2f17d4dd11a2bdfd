package dev.writerfence.benchmarks.jmh;

import dev.writerfence.benchmarks.peers.Backends;
import dev.writerfence.benchmarks.peers.BenchTarget;
import dev.writerfence.benchmarks.peers.LockBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Lease cycle latency with 1, 10^4 or 10^6 fence names in the lease table. The table is filled with
 * free rows first; each cycle takes a name at random among them, so with many names the rows and
 * index pages are spread as a real set of fences would spread them. Microseconds per cycle.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ScaleBenchmark {
  /** Fence names in the table. */
  @Param({"1", "10000", "1000000"})
  public int names;

  private LockBackend lease;
  private String[] fenceNames;

  /**
   * Fills the table with {@link #names} free rows (and nothing else) and opens the lease backend.
   *
   * @throws SQLException when the table cannot be filled
   */
  @Setup(Level.Trial)
  public void open() throws SQLException {
    BenchTarget target = BenchTarget.fromSystemProperties();
    try (Connection c = DriverManager.getConnection(target.jdbcUrl(), "postgres", null);
        Statement st = c.createStatement()) {
      st.execute("TRUNCATE writer_fence.lease");
      st.execute(
          "INSERT INTO writer_fence.lease (fence_name, holder_token, holder_label, fencing_token,"
              + " acquired_at, expires_at) SELECT 'scale-' || i, NULL, 'bench', 1, now(), now()"
              + " FROM generate_series(0, "
              + (names - 1)
              + ") AS i");
      st.execute("VACUUM ANALYZE writer_fence.lease");
      st.execute("CHECKPOINT");
    }
    fenceNames = new String[names];
    for (int i = 0; i < names; i++) {
      fenceNames[i] = "scale-" + i;
    }
    lease = Backends.open(LockBackend.Kind.LEASE, target, 2);
  }

  /** Closes the backend. */
  @TearDown(Level.Trial)
  public void close() {
    lease.close();
  }

  /**
   * @return whether the lease was taken (always: every row is free)
   */
  @Benchmark
  public boolean cycle() {
    String name = fenceNames[ThreadLocalRandom.current().nextInt(fenceNames.length)];
    return lease.cycle(name, CriticalSection.EMPTY);
  }
}
