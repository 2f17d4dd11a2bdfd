package dev.writerfence.benchmarks.jmh;

import dev.writerfence.benchmarks.peers.Backends;
import dev.writerfence.benchmarks.peers.BenchTarget;
import dev.writerfence.benchmarks.peers.LockBackend;
import java.util.UUID;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Uncontended acquire + release cycles, one lock name per thread, for every backend on the same
 * server and connection setup. The critical section is empty: what is measured is the lock's own
 * cost. Throughput in cycles per second (all threads together).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class CycleBenchmark {
  /** The backend, by {@link LockBackend.Kind#id()}. */
  @Param({"lease", "advisory", "shedlock", "jdbcLockRegistry", "rawFloor", "redisson"})
  public String backend;

  LockBackend.Kind kind;
  BenchTarget target;
  LockBackend shared;

  /** Unique per trial, so names never meet rows a previous trial left held. */
  String run;

  /**
   * @param params the trial's parameters (its thread count sizes the shared pool)
   */
  @Setup(Level.Trial)
  public void open(BenchmarkParams params) {
    kind = LockBackend.Kind.of(backend);
    target = BenchTarget.fromSystemProperties();
    run = UUID.randomUUID().toString().substring(0, 8);
    if (kind.sharedAcrossThreads()) {
      shared = Backends.open(kind, target, params.getThreads() + 1);
    }
  }

  /** Closes the shared backend. */
  @TearDown(Level.Trial)
  public void close() {
    if (shared != null) {
      shared.close();
    }
  }

  /** One thread: its own lock name, and its own backend where the library needs one per holder. */
  @State(Scope.Thread)
  public static class Holder {
    String name;
    LockBackend backend;
    private LockBackend own;

    /**
     * @param bench the benchmark's shared state
     * @param thread this thread's index
     */
    @Setup(Level.Trial)
    public void open(CycleBenchmark bench, ThreadParams thread) {
      name = "cycle-" + bench.run + "-" + thread.getThreadIndex();
      if (bench.shared == null) {
        own = Backends.open(bench.kind, bench.target, 2);
      }
      backend = bench.shared != null ? bench.shared : own;
    }

    /** Closes this thread's own backend, if it has one. */
    @TearDown(Level.Trial)
    public void close() {
      if (own != null) {
        own.close();
      }
    }
  }

  /**
   * @param holder this thread's name and backend
   * @return whether the lock was taken (always, uncontended), so the call is not optimised away
   */
  @Benchmark
  public boolean cycle(Holder holder) {
    return holder.backend.cycle(holder.name, CriticalSection.EMPTY);
  }
}
