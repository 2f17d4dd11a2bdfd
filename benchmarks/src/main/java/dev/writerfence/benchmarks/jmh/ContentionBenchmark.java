package dev.writerfence.benchmarks.jmh;

import dev.writerfence.benchmarks.measure.ContentionRecord;
import dev.writerfence.benchmarks.peers.Backends;
import dev.writerfence.benchmarks.peers.BenchTarget;
import dev.writerfence.benchmarks.peers.LockBackend;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Every thread tries, again and again without pause, to take the one lock name all of them share:
 * each thread stands for a writer process. JMH reports attempts per second and, through the
 * auxiliary counters, {@code won} (successful critical sections per second) and {@code busy}. The
 * latency of busy outcomes and which threads won are written beside the JMH result by {@link
 * ContentionRecord} (measurement iterations only).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ContentionBenchmark {
  /** The backend, by {@link LockBackend.Kind#id()}. */
  @Param({"lease"})
  public String backend;

  LockBackend.Kind kind;
  BenchTarget target;
  LockBackend shared;
  String name;
  final List<ContentionRecord.Tally> tallies = new CopyOnWriteArrayList<>();

  /**
   * @param params the trial's parameters (its thread count sizes the shared pool)
   */
  @Setup(Level.Trial)
  public void open(BenchmarkParams params) {
    kind = LockBackend.Kind.of(backend);
    target = BenchTarget.fromSystemProperties();
    name = "contention-" + UUID.randomUUID().toString().substring(0, 8);
    if (kind.sharedAcrossThreads()) {
      shared = Backends.open(kind, target, params.getThreads() + 1);
    }
  }

  /**
   * Writes the busy latencies and the winners of the measurement iterations, then closes.
   *
   * @param params the trial's parameters
   */
  @TearDown(Level.Trial)
  public void close(BenchmarkParams params) {
    ContentionRecord.write(backend, params.getThreads(), tallies);
    if (shared != null) {
      shared.close();
    }
  }

  /** One contender: its counters, and its own backend where the library needs one per holder. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Outcomes {
    /** Successful critical sections in this iteration. */
    public long won;

    /** Attempts that found the lock busy in this iteration. */
    public long busy;

    /**
     * Attempts that ended in an exception (the fence's unavailable: the database could not answer
     * in time, e.g. a lock timeout on a row other contenders were changing): neither won nor busy.
     */
    public long unavailable;

    private final ContentionRecord.Tally tally = new ContentionRecord.Tally();
    private LockBackend backend;
    private LockBackend own;

    /**
     * @param bench the shared state
     */
    @Setup(Level.Trial)
    public void open(ContentionBenchmark bench) {
      if (bench.shared == null) {
        own = Backends.open(bench.kind, bench.target, 2);
      }
      backend = bench.shared != null ? bench.shared : own;
      bench.tallies.add(tally);
    }

    /**
     * @param iteration whether this is a warm-up or a measurement iteration
     */
    @Setup(Level.Iteration)
    public void reset(IterationParams iteration) {
      won = 0;
      busy = 0;
      unavailable = 0;
      tally.measuring(iteration.getType() == IterationType.MEASUREMENT);
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
   * One attempt: take, run the empty critical section, release; or busy.
   *
   * @param bench the shared state
   * @param outcomes this thread's counters
   */
  @Benchmark
  public void attempt(ContentionBenchmark bench, Outcomes outcomes) {
    long start = System.nanoTime();
    boolean taken;
    try {
      taken = outcomes.backend.cycle(bench.name, CriticalSection.EMPTY);
    } catch (RuntimeException e) {
      outcomes.unavailable++; // fail closed: counted, and the contender tries again
      return;
    }
    long nanos = System.nanoTime() - start;
    if (taken) {
      outcomes.won++;
    } else {
      outcomes.busy++;
    }
    outcomes.tally.record(taken, nanos);
  }
}
