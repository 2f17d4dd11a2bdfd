package dev.writerfence.benchmarks;

import dev.writerfence.benchmarks.measure.ContentionShape;
import dev.writerfence.benchmarks.peers.LockBackend;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import java.util.List;

/**
 * How long and how wide one run is. Every run measures the same things; the plans differ in
 * iterations, forks, which contenders and backends take part, and how many cycles the table growth
 * runs.
 *
 * @param name {@code smoke}, {@code quick} or {@code full}
 * @param forks JMH forks per benchmark (0: in the launcher's JVM)
 * @param warmups warm-up iterations
 * @param warmupSeconds seconds per warm-up iteration
 * @param iterations measurement iterations
 * @param iterationSeconds seconds per measurement iteration
 * @param cycleThreads thread counts of the uncontended cycle benchmark
 * @param contentionThreads thread counts of the contention benchmark, the same for every shape
 * @param contention the contention benchmark's shapes, each with its backends; one JMH result file
 *     per shape and thread count
 * @param scaleNames name counts of the scale benchmark
 * @param roundTripCycles cycles counted per backend for the round trips
 * @param growthCycles cycles on one name for the table growth (on the speed-first server)
 * @param speedFirst whether the cycle benchmark also runs on zonky's speed-first server
 * @param startupRuns runs with and without the agent for its start-up cost
 * @param fairQueue the fair queue's run with separate contender processes ({@link FairQueueRun})
 */
public record Plan(
    String name,
    int forks,
    int warmups,
    int warmupSeconds,
    int iterations,
    int iterationSeconds,
    List<Integer> cycleThreads,
    List<Integer> contentionThreads,
    List<Contention> contention,
    List<String> scaleNames,
    int roundTripCycles,
    long growthCycles,
    boolean speedFirst,
    int startupRuns,
    FairQueueRun.Settings fairQueue) {

  /**
   * One shape of the contention benchmark and the backends measured in it.
   *
   * @param shape contenders and mode
   * @param backends backend ids ({@link LockBackend.Kind#id()}); every one offers the waiting cycle
   *     when the mode is {@code retry}
   */
  public record Contention(ContentionShape shape, List<String> backends) {
    /**
     * @throws IllegalArgumentException naming a backend that is not known, or one asked for the
     *     {@code retry} mode that has no waiting cycle
     */
    public Contention {
      backends = List.copyOf(backends);
      for (String id : backends) {
        LockBackend.Kind kind = LockBackend.Kind.of(id);
        if (shape.mode() == ContentionShape.Mode.RETRY && !kind.retries()) {
          throw new IllegalArgumentException(
              "backend '" + id + "' has no retry mode: only lease and advisory");
        }
      }
    }

    /**
     * @param contenders {@code threads} or {@code processes}
     * @param mode {@code try} or {@code retry}
     * @param backends backend ids
     * @return the shape with its backends
     */
    static Contention of(String contenders, String mode, String... backends) {
      return new Contention(ContentionShape.of(contenders, mode), List.of(backends));
    }
  }

  private static final String[] PG_BACKENDS = {
    "lease", "advisory", "shedlock", "jdbcLockRegistry", "rawFloor"
  };

  /** Seconds per benchmark, no fork: proves the benchmarks still run (CI). */
  public static final Plan SMOKE =
      new Plan(
          "smoke",
          0,
          0,
          1,
          1,
          1,
          List.of(1),
          List.of(2),
          List.of(
              Contention.of("threads", "try", "lease"), Contention.of("threads", "retry", "lease")),
          List.of("1", "10000"),
          20,
          2_000,
          false,
          1,
          fairQueue(8, 2, 2));

  /**
   * Under 5 minutes on 2 cores (197 s before the contention shapes; each contention configuration
   * adds about 6 s, so {@code processes / retry} is left to the full plan).
   */
  public static final Plan QUICK =
      new Plan(
          "quick",
          1,
          1,
          1,
          3,
          1,
          List.of(1),
          List.of(1, 2, 8, 32, 64),
          List.of(
              Contention.of("threads", "try", "lease"),
              Contention.of("processes", "try", "lease"),
              Contention.of("threads", "retry", "lease")),
          List.of("1", "10000", "1000000"),
          50,
          20_000,
          false,
          3,
          fairQueue(64, 5, 5));

  /**
   * Every PostgreSQL backend under contention in both shapes of contenders (writer-fence's kinds in
   * the retry mode too), 1 and 4 threads in the cycle benchmark, the speed-first server beside,
   * 10^6 cycles for the table growth; 5 iterations of 3 s after 2 of 2 s, one fork each. About an
   * hour on 2 cores: more forks or longer iterations multiply that (70 contention settings).
   */
  public static final Plan FULL =
      new Plan(
          "full",
          1,
          2,
          2,
          5,
          3,
          List.of(1, 4),
          List.of(1, 2, 8, 32, 64),
          List.of(
              Contention.of("threads", "try", PG_BACKENDS),
              Contention.of("processes", "try", PG_BACKENDS),
              Contention.of("threads", "retry", "lease", "advisory"),
              Contention.of("processes", "retry", "lease", "advisory")),
          List.of("1", "10000", "1000000"),
          1000,
          1_000_000,
          true,
          15,
          fairQueue(64, 15, 10));

  /**
   * The fair queue's run: each section sleeps 10 ms (a short write, as the demo's batch of puts).
   *
   * @param contenders separate processes
   * @param phaseSeconds each contention phase
   * @param idleSeconds the idle waiters' count
   */
  private static FairQueueRun.Settings fairQueue(
      int contenders, int phaseSeconds, int idleSeconds) {
    return new FairQueueRun.Settings(contenders, phaseSeconds, idleSeconds, 10_000);
  }

  /**
   * @param arg {@code --smoke}, {@code --quick} or {@code --full}
   * @return the plan
   * @throws IllegalArgumentException naming the argument and the allowed ones
   */
  public static Plan of(String arg) {
    return switch (arg) {
      case "--smoke" -> SMOKE;
      case "--quick" -> QUICK;
      case "--full" -> FULL;
      default ->
          throw new IllegalArgumentException(
              "'" + arg + "' is not a plan: one of --smoke, --quick, --full");
    };
  }
}
