package dev.writerfence.benchmarks.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What JMH does not report for the contention benchmark: the latency of busy outcomes (p50, p99)
 * and how many distinct contenders won, over the measurement iterations. Written as {@code
 * contention-BACKEND-tTHREADS.json} into the directory of the system property {@value #OUT_DIR}
 * (nothing is written without it).
 */
public final class ContentionRecord {
  /** System property: the directory for the record. */
  public static final String OUT_DIR = "bench.out.dir";

  /** Busy latencies kept per contender at most, so a long run cannot exhaust the heap. */
  static final int MAX_SAMPLES = 1 << 21;

  private ContentionRecord() {}

  /**
   * The record's content.
   *
   * @param backend the backend id
   * @param threads contenders
   * @param busyOutcomes busy outcomes sampled (measurement iterations)
   * @param busyP50Micros median busy-outcome latency, microseconds
   * @param busyP99Micros 99th percentile busy-outcome latency, microseconds
   * @param distinctWinners contenders that won at least once
   * @param winsPerContender successful critical sections of each contender
   */
  public record Result(
      String backend,
      int threads,
      long busyOutcomes,
      double busyP50Micros,
      double busyP99Micros,
      int distinctWinners,
      long[] winsPerContender) {}

  /** One contender's outcomes; used by its own thread only until the trial ends. */
  public static final class Tally {
    private boolean measuring;
    private long wins;
    private long[] busyNanos = new long[1 << 12];
    private int busyCount;

    /**
     * @param measuring whether the current iteration is a measurement iteration
     */
    public void measuring(boolean measuring) {
      this.measuring = measuring;
    }

    /**
     * @param won whether the attempt took the lock
     * @param nanos how long the attempt took
     */
    public void record(boolean won, long nanos) {
      if (!measuring) {
        return;
      }
      if (won) {
        wins++;
      } else if (busyCount < MAX_SAMPLES) {
        if (busyCount == busyNanos.length) {
          busyNanos = Arrays.copyOf(busyNanos, busyCount * 2);
        }
        busyNanos[busyCount++] = nanos;
      }
    }
  }

  /**
   * @param backend the backend id
   * @param threads contenders
   * @param tallies every contender's tally
   * @return the summary
   */
  public static Result summarize(String backend, int threads, List<Tally> tallies) {
    int total = 0;
    for (Tally t : tallies) {
      total += t.busyCount;
    }
    long[] all = new long[total];
    int at = 0;
    long[] wins = new long[tallies.size()];
    int winners = 0;
    List<Tally> ordered = new ArrayList<>(tallies);
    for (int i = 0; i < ordered.size(); i++) {
      Tally t = ordered.get(i);
      System.arraycopy(t.busyNanos, 0, all, at, t.busyCount);
      at += t.busyCount;
      wins[i] = t.wins;
      if (t.wins > 0) {
        winners++;
      }
    }
    Arrays.sort(all);
    return new Result(
        backend,
        threads,
        total,
        percentileMicros(all, 0.50),
        percentileMicros(all, 0.99),
        winners,
        wins);
  }

  /** Nearest-rank percentile; NaN when there is no sample. */
  static double percentileMicros(long[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int rank = (int) Math.ceil(p * sorted.length);
    return sorted[Math.max(0, rank - 1)] / 1000.0;
  }

  /**
   * Writes the summary, when {@value #OUT_DIR} is set.
   *
   * @param backend the backend id
   * @param threads contenders
   * @param tallies every contender's tally
   */
  public static void write(String backend, int threads, List<Tally> tallies) {
    String dir = System.getProperty(OUT_DIR);
    if (dir == null) {
      return;
    }
    Result result = summarize(backend, threads, tallies);
    Path file = Path.of(dir, "contention-" + backend + "-t" + threads + ".json");
    try {
      Files.createDirectories(file.getParent());
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(file.toFile(), result);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
