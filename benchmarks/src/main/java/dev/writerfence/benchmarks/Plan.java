package dev.writerfence.benchmarks;

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
 * @param contentionThreads thread counts of the contention benchmark
 * @param contentionBackends backends of the contention benchmark
 * @param scaleNames name counts of the scale benchmark
 * @param roundTripCycles cycles counted per backend for the round trips
 * @param growthCycles cycles on one name for the table growth (on the speed-first server)
 * @param speedFirst whether the cycle benchmark also runs on zonky's speed-first server
 * @param startupRuns runs with and without the agent for its start-up cost
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
    List<String> contentionBackends,
    List<String> scaleNames,
    int roundTripCycles,
    long growthCycles,
    boolean speedFirst,
    int startupRuns) {

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
          List.of("lease"),
          List.of("1", "10000"),
          20,
          2_000,
          false,
          1);

  /** Under 5 minutes on 2 cores. */
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
          List.of("lease"),
          List.of("1", "10000", "1000000"),
          50,
          20_000,
          false,
          3);

  /** Longer iterations, two forks, every PostgreSQL backend under contention, 10^6 cycles. */
  public static final Plan FULL =
      new Plan(
          "full",
          2,
          3,
          5,
          5,
          5,
          List.of(1, 4),
          List.of(1, 2, 8, 32, 64),
          List.of("lease", "advisory", "shedlock", "jdbcLockRegistry", "rawFloor"),
          List.of("1", "10000", "1000000"),
          1000,
          1_000_000,
          true,
          15);

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
