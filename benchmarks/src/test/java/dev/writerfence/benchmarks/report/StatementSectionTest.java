package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatementSectionTest {
  @TempDir Path dir;

  /** A JMH result row of one round, each statement with its summed nanoseconds and calls. */
  private void round(long update, long acquire, long acquireMs, long release) throws Exception {
    Files.writeString(
        dir.resolve(StatementSection.FILE),
        String.format(
            Locale.ROOT,
            "[{\"benchmark\":\"dev.writerfence.benchmarks.jmh.StatementBenchmark.round\","
                + "\"threads\":1,\"primaryMetric\":{\"score\":900.0,\"scoreUnit\":\"us/op\"},"
                + "\"secondaryMetrics\":{%s,%s,%s,%s}}]",
            counters("update", update * 2_000, 2),
            counters("acquire", acquire * 1_000, 1),
            counters("acquireMs", acquireMs * 1_000, 1),
            counters("release", release * 2_000, 2)));
  }

  private static String counters(String statement, long nanos, long calls) {
    return String.format(
        Locale.ROOT,
        "\"%sNanos\":{\"score\":%d,\"scoreUnit\":\"#\"},\"%sCalls\":{\"score\":%d,\"scoreUnit\":\"#\"}",
        statement,
        nanos,
        statement,
        calls);
  }

  private List<String[]> targets(StringBuilder md) throws Exception {
    List<String[]> targets = new ArrayList<>();
    StatementSection.write(dir, md, targets);
    return targets;
  }

  @Test
  void statementsWithinTheirBoundsPassAndTheTableShowsEachRatio() throws Exception {
    round(200, 280, 260, 150);
    StringBuilder md = new StringBuilder();

    List<String[]> targets = targets(md);

    assertThat(md)
        .contains("| plain durable single-row `UPDATE` | 200.0 | 1.00× |")
        .contains("| `writer_fence.acquire_lease` (TTL in seconds) | 280.0 | 1.40× |")
        .contains("| `writer_fence.release` (no flush of its own) | 150.0 | 0.75× |")
        .contains("took 1.08× two plain UPDATEs");
    assertThat(targets.subList(0, 3)).allSatisfy(t -> assertThat(t[3]).isEqualTo("pass"));
  }

  @Test
  void aSlowAcquireMissesByHowMuchAndAMissingRunIsNotMeasured() throws Exception {
    round(100, 300, 140, 120);

    List<String[]> targets = targets(new StringBuilder());

    assertThat(targets.get(0))
        .containsExactly(
            "`acquire_lease` ÷ plain durable UPDATE", "≤ 1.5×", "3.00×", "**miss** (100% over)");
    assertThat(targets.get(1)[3]).isEqualTo("pass");
    assertThat(targets.get(2)[3]).isEqualTo("**miss** (20% over)");
    assertThat(targets.get(3)[2]).as("no cycle run in this directory").isEqualTo("not measured");
  }
}
