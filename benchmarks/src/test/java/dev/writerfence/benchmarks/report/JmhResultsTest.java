package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JmhResultsTest {

  @Test
  void eventCountersBecomeARatePerMeasurementIterationOverEveryFork(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("contention-threads-retry-t8.json");
    Files.writeString(
        file,
        """
        [{"benchmark": "x.ContentionBenchmark.attempt", "threads": 8,
          "measurementTime": "500 ms",
          "params": {"backend": "lease", "contenders": "threads", "mode": "retry"},
          "primaryMetric": {"score": 1.0, "scoreUnit": "ops/s"},
          "secondaryMetrics": {
            "won": {"score": 100.0, "scoreUnit": "#", "rawData": [[10.0, 20.0], [30.0, 40.0]]},
            "old": {"score": 7.0, "scoreUnit": "ops/s"}}}]
        """);

    JmhResults.Row row = JmhResults.read(file).get(0);

    assertThat(row.param()).isEqualTo("lease");
    assertThat(row.secondaryPerSecond("won")).isEqualTo(50.0); // mean 25 per 0.5 s
    assertThat(row.secondaryPerSecond("old")).isEqualTo(7.0);
    assertThat(row.secondaryPerSecond("absent")).isNaN();
  }

  @Test
  void timeValuesAsJmhWritesThem() {
    assertThat(JmhResults.seconds("1 s")).isEqualTo(1.0);
    assertThat(JmhResults.seconds("250 ms")).isEqualTo(0.25);
    assertThat(JmhResults.seconds("1 min")).isEqualTo(60.0);
    assertThat(JmhResults.seconds("soon")).isNaN();
  }
}
