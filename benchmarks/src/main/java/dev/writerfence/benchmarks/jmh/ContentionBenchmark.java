package dev.writerfence.benchmarks.jmh;

import dev.writerfence.benchmarks.measure.ContentionRecord;
import dev.writerfence.benchmarks.measure.ContentionShape;
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
import org.openjdk.jmh.infra.Control;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * Every thread takes, again and again, the one fence name all of them share, in one of four shapes
 * ({@link ContentionShape}): the contenders are threads of one process sharing one backend ({@code
 * threads}) or stand-ins for separate writer processes with a backend each ({@code processes});
 * each tries once without pause ({@code try}) or runs the fence's own call with its default busy
 * retry ({@code retry}, writer-fence's kinds only). The two differ for writer-fence: threads of one
 * {@code WriterFence} take turns in the process and only the turn's holder asks the database, while
 * processes meet only in the database.
 *
 * <p>JMH reports calls per second (each thread's calls over its own measured time, which takes in
 * the whole of its last call) and, through the auxiliary counters, the outcomes that ended inside
 * the measurement window: {@code won} (successful critical sections), {@code busy} and {@code
 * unavailable}, as events summed over the threads (the report divides them by the measured time).
 * Counting by the window matters once a call may wait for seconds: JMH keeps threads calling before
 * and after it until the slowest is ready or done, and a thread's own measured time then says
 * nothing about the window. The latency of busy outcomes and of wins, and which threads won, are
 * written beside the JMH result by {@link ContentionRecord} (same window).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class ContentionBenchmark {
  /** Connections of each contender's own pool in the {@code processes} shape (a small service). */
  static final int PROCESS_POOL = 2;

  /** The backend, by {@link LockBackend.Kind#id()}. */
  @Param({"lease"})
  public String backend;

  /** {@code threads} or {@code processes}: {@link ContentionShape.Contenders#id()}. */
  @Param({"threads", "processes"})
  public String contenders;

  /** {@code try} or {@code retry}: {@link ContentionShape.Mode#id()}. */
  @Param({"try", "retry"})
  public String mode;

  LockBackend.Kind kind;
  ContentionShape shape;
  BenchTarget target;
  LockBackend shared;
  String name;
  final List<ContentionRecord.Tally> tallies = new CopyOnWriteArrayList<>();

  /**
   * @param params the trial's parameters (its thread count sizes the shared pool)
   * @throws IllegalArgumentException when a parameter is not known, or {@code retry} is asked of a
   *     kind without a waiting cycle
   */
  @Setup(Level.Trial)
  public void open(BenchmarkParams params) {
    kind = LockBackend.Kind.of(backend);
    shape = ContentionShape.of(contenders, mode);
    if (shape.mode() == ContentionShape.Mode.RETRY && !kind.retries()) {
      // Refused here, not per call: attempt() counts exceptions as unavailable and goes on.
      throw new IllegalArgumentException(
          "mode 'retry' is not offered by backend '" + backend + "': only lease and advisory");
    }
    target = BenchTarget.fromSystemProperties();
    name = "contention-" + UUID.randomUUID().toString().substring(0, 8);
    if (shape.contenders() == ContentionShape.Contenders.THREADS) {
      shared = Backends.open(kind, target, params.getThreads() + 1);
    }
  }

  /**
   * Writes the latencies and the winners of the measurement iterations, then closes.
   *
   * @param params the trial's parameters
   */
  @TearDown(Level.Trial)
  public void close(BenchmarkParams params) {
    ContentionRecord.write(backend, shape, params.getThreads(), tallies);
    if (shared != null) {
      shared.close();
    }
  }

  /** One contender: its counters, and its own backend when it stands for a process. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Outcomes {
    /** Successful critical sections in this iteration's measurement window. */
    public long won;

    /** Calls that answered busy in the window (retry: after the whole retry schedule). */
    public long busy;

    /**
     * Calls that ended in an exception (the fence's unavailable: the database could not answer in
     * time, e.g. a lock timeout on a row other contenders were changing): neither won nor busy.
     */
    public long unavailable;

    private final ContentionRecord.Tally tally = new ContentionRecord.Tally();
    private LockBackend backend;
    private LockBackend own;
    private boolean waiting;
    private long sectionStart;

    /** The critical section: notes when it started (the time to win), and is otherwise empty. */
    private final Runnable section =
        () -> {
          sectionStart = System.nanoTime();
          CriticalSection.EMPTY.run();
        };

    /**
     * @param bench the shared state
     */
    @Setup(Level.Trial)
    public void open(ContentionBenchmark bench) {
      if (bench.shared == null) {
        own = Backends.open(bench.kind, bench.target, PROCESS_POOL);
      }
      backend = bench.shared != null ? bench.shared : own;
      waiting = bench.shape.mode() == ContentionShape.Mode.RETRY;
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
   * One call: take (once, or with the fence's busy retry), run the empty critical section, release;
   * or busy.
   *
   * @param bench the shared state
   * @param outcomes this thread's counters
   * @param control JMH's: whether the measurement window is open (from the first thread's start of
   *     measuring to the first thread's end of it)
   */
  @Benchmark
  public void attempt(ContentionBenchmark bench, Outcomes outcomes, Control control) {
    long start = System.nanoTime();
    boolean taken;
    try {
      taken =
          outcomes.waiting
              ? outcomes.backend.cycleWaiting(bench.name, outcomes.section)
              : outcomes.backend.cycle(bench.name, outcomes.section);
    } catch (RuntimeException e) {
      if (control.startMeasurement && !control.stopMeasurement) {
        outcomes.unavailable++; // fail closed: counted, and the contender tries again
      }
      return;
    }
    if (!control.startMeasurement || control.stopMeasurement) {
      return; // ended outside the window: JMH's warm-up wait or warm-down
    }
    if (taken) {
      outcomes.won++;
      outcomes.tally.record(true, outcomes.sectionStart - start);
    } else {
      outcomes.busy++;
      outcomes.tally.record(false, System.nanoTime() - start);
    }
  }
}
