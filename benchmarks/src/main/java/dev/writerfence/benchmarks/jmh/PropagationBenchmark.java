package dev.writerfence.benchmarks.jmh;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost the agent's propagation adds to a hand-off: one task submitted to a single-thread pool
 * and awaited ({@code submit} + run + {@code get}), in a fork without the agent, one with the agent
 * ({@code audit.mode=log}: propagation on by default) and one with {@code agent.propagation=false}.
 * {@code handOff} submits while the thread holds nothing (the advice's cost: one thread-local read
 * per task created), {@code handOffHeld} while it holds a fence (capture, the task's entry, restore
 * on the worker and the close). No database: a no-op lease store grants the fence.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class PropagationBenchmark {
  private static final Callable<Integer> TASK = () -> 1;

  private ExecutorService pool;

  /** Starts the pool's worker before any hold. */
  @Setup(Level.Trial)
  public void start() {
    pool = Executors.newSingleThreadExecutor();
    ((ThreadPoolExecutor) Executors.newFixedThreadPool(1)).shutdown(); // loads the class
    try {
      pool.submit(TASK).get();
    } catch (InterruptedException | ExecutionException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Stops the pool. */
  @TearDown(Level.Trial)
  public void stop() {
    pool.shutdownNow();
  }

  /**
   * @return the task's result
   * @throws Exception when the task fails
   */
  @Benchmark
  public int handOff() throws Exception {
    return pool.submit(TASK).get();
  }

  /**
   * @param fence the fence held on this thread for the whole iteration
   * @return the task's result
   * @throws Exception when the task fails
   */
  @Benchmark
  public int handOffHeld(AuditBenchmark.HeldFence fence) throws Exception {
    return pool.submit(TASK).get();
  }
}
