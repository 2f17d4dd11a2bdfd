package dev.writerfence.benchmarks.measure;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * What JMH does not report for the contention benchmark: the latency of busy outcomes and of wins
 * (p50, p99) and how many distinct contenders won, over the measurement iterations. Written as
 * {@link ContentionShape#recordFile} (e.g. {@code contention-lease-threads-try-t64.json}) into the
 * directory of the system property {@value #OUT_DIR} (nothing is written without it).
 */
public final class ContentionRecord {
  /** System property: the directory for the record. */
  public static final String OUT_DIR = "bench.out.dir";

  private ContentionRecord() {}

  /**
   * The record's content.
   *
   * @param backend the backend id
   * @param contenders {@link ContentionShape.Contenders#id()}
   * @param mode {@link ContentionShape.Mode#id()}
   * @param threads contenders
   * @param busyOutcomes busy outcomes (measurement iterations)
   * @param busyP50Micros median busy-outcome latency (call to busy answer), microseconds; NaN
   *     without busy outcomes
   * @param busyP99Micros 99th percentile busy-outcome latency, microseconds; NaN likewise
   * @param wonP50Micros median time to win (call to critical-section start), microseconds; NaN
   *     without wins
   * @param wonP99Micros 99th percentile time to win, microseconds; NaN likewise
   * @param distinctWinners contenders that won at least once
   * @param winsPerContender successful critical sections of each contender
   */
  public record Result(
      String backend,
      String contenders,
      String mode,
      int threads,
      long busyOutcomes,
      double busyP50Micros,
      double busyP99Micros,
      double wonP50Micros,
      double wonP99Micros,
      int distinctWinners,
      long[] winsPerContender) {}

  /**
   * Latencies of one outcome, in an HdrHistogram (3 significant digits, auto-resizing): constant
   * memory however many outcomes a contender has (millions of busy answers per second when a turn
   * in the process answers them).
   */
  private static final class Samples {
    private final Histogram nanos = new Histogram(3);

    void add(long value) {
      nanos.recordValue(Math.max(0, value));
    }

    static Histogram union(List<Tally> tallies, boolean won) {
      Histogram all = new Histogram(3);
      for (Tally t : tallies) {
        all.add((won ? t.won : t.busy).nanos);
      }
      return all;
    }
  }

  /** One contender's outcomes; used by its own thread only until the trial ends. */
  public static final class Tally {
    private boolean measuring;
    private long wins;
    private final Samples busy = new Samples();
    private final Samples won = new Samples();

    /**
     * @param measuring whether the current iteration is a measurement iteration
     */
    public void measuring(boolean measuring) {
      this.measuring = measuring;
    }

    /**
     * @param won whether the attempt took the lock
     * @param nanos won: from the call to the critical section's start; busy: from the call to its
     *     busy answer
     */
    public void record(boolean won, long nanos) {
      if (!measuring) {
        return;
      }
      if (won) {
        wins++;
        this.won.add(nanos);
      } else {
        busy.add(nanos);
      }
    }
  }

  /**
   * @param backend the backend id
   * @param shape the run's shape
   * @param threads contenders
   * @param tallies every contender's tally
   * @return the summary
   */
  public static Result summarize(
      String backend, ContentionShape shape, int threads, List<Tally> tallies) {
    List<Tally> ordered = new ArrayList<>(tallies);
    long[] wins = new long[ordered.size()];
    int winners = 0;
    for (int i = 0; i < ordered.size(); i++) {
      wins[i] = ordered.get(i).wins;
      if (wins[i] > 0) {
        winners++;
      }
    }
    Histogram busy = Samples.union(ordered, false);
    Histogram won = Samples.union(ordered, true);
    return new Result(
        backend,
        shape.contenders().id(),
        shape.mode().id(),
        threads,
        busy.getTotalCount(),
        percentileMicros(busy, 0.50),
        percentileMicros(busy, 0.99),
        percentileMicros(won, 0.50),
        percentileMicros(won, 0.99),
        winners,
        wins);
  }

  /** The percentile (0 to 1) in microseconds; NaN when there is no sample. */
  static double percentileMicros(Histogram nanos, double p) {
    if (nanos.getTotalCount() == 0) {
      return Double.NaN;
    }
    return nanos.getValueAtPercentile(p * 100) / 1000.0;
  }

  /**
   * Writes the summary into the directory {@value #OUT_DIR} names, when it is set.
   *
   * @param backend the backend id
   * @param shape the run's shape
   * @param threads contenders
   * @param tallies every contender's tally
   * @throws UncheckedIOException when the file cannot be written
   */
  public static void write(
      String backend, ContentionShape shape, int threads, List<Tally> tallies) {
    String dir = System.getProperty(OUT_DIR);
    if (dir != null) {
      write(Path.of(dir), summarize(backend, shape, threads, tallies));
    }
  }

  /**
   * @param dir the run's directory (created when missing)
   * @param result the summary
   * @return the file written, {@link ContentionShape#recordFile} in {@code dir}
   * @throws UncheckedIOException when the file cannot be written
   */
  static Path write(Path dir, Result result) {
    ContentionShape shape = ContentionShape.of(result.contenders(), result.mode());
    Path file = dir.resolve(shape.recordFile(result.backend(), result.threads()));
    try {
      Files.createDirectories(dir);
      new ObjectMapper()
          .enable(SerializationFeature.INDENT_OUTPUT)
          .writeValue(file.toFile(), result);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }
}
