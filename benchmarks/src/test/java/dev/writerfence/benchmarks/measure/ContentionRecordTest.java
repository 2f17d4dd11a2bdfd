package dev.writerfence.benchmarks.measure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContentionRecordTest {
  private static final ContentionShape THREADS_RETRY = ContentionShape.of("threads", "retry");

  @Test
  void summaryHasBusyAndWonPercentilesOfMeasurementIterationsOnly() {
    ContentionRecord.Tally first = new ContentionRecord.Tally();
    ContentionRecord.Tally second = new ContentionRecord.Tally();
    ContentionRecord.Tally idle = new ContentionRecord.Tally();
    first.measuring(false);
    first.record(true, 999_000_000); // warm-up: not counted
    first.measuring(true);
    second.measuring(true);
    for (int i = 1; i <= 100; i++) {
      first.record(true, i * 1_000L); // 1..100 us to win
      second.record(false, i * 10_000L); // 10..1000 us to busy
    }
    second.record(true, 5_000);

    ContentionRecord.Result r =
        ContentionRecord.summarize("lease", THREADS_RETRY, 3, List.of(first, second, idle));

    assertThat(r.contenders()).isEqualTo("threads");
    assertThat(r.mode()).isEqualTo("retry");
    assertThat(r.winsPerContender()).containsExactly(100, 1, 0);
    assertThat(r.distinctWinners()).isEqualTo(2);
    assertThat(r.busyOutcomes()).isEqualTo(100);
    assertThat(r.busyP50Micros()).isCloseTo(500.0, withPercentage(0.1));
    assertThat(r.busyP99Micros()).isCloseTo(990.0, withPercentage(0.1));
    // 101 wins: 1..100 us and one of 5 us; rank 51 and 100, to HdrHistogram's 3 digits
    assertThat(r.wonP50Micros()).isCloseTo(50.0, withPercentage(0.1));
    assertThat(r.wonP99Micros()).isCloseTo(99.0, withPercentage(0.1));
  }

  @Test
  void withoutBusyOutcomesTheirPercentilesAreNotANumber() {
    ContentionRecord.Tally only = new ContentionRecord.Tally();
    only.measuring(true);
    only.record(true, 2_000);

    ContentionRecord.Result r =
        ContentionRecord.summarize("lease", THREADS_RETRY, 1, List.of(only));

    assertThat(r.busyP99Micros()).isNaN();
    assertThat(r.wonP99Micros()).isCloseTo(2.0, withPercentage(0.1));
  }

  @Test
  void fileIsNamedByBackendShapeAndThreadsAndKeepsTheEarlierFields(@TempDir Path dir)
      throws Exception {
    ContentionRecord.Tally t = new ContentionRecord.Tally();
    t.measuring(true);
    t.record(false, 3_000);
    ContentionShape shape = ContentionShape.of("processes", "try");

    Path file =
        ContentionRecord.write(dir, ContentionRecord.summarize("advisory", shape, 64, List.of(t)));

    assertThat(file).isEqualTo(dir.resolve("contention-advisory-processes-try-t64.json"));
    JsonNode json = new ObjectMapper().readTree(file.toFile());
    assertThat(json.path("backend").asText()).isEqualTo("advisory");
    assertThat(json.path("contenders").asText()).isEqualTo("processes");
    assertThat(json.path("mode").asText()).isEqualTo("try");
    assertThat(json.path("threads").asInt()).isEqualTo(64);
    assertThat(json.path("busyOutcomes").asLong()).isEqualTo(1);
    assertThat(json.path("busyP50Micros").asDouble()).isCloseTo(3.0, withPercentage(0.1));
    assertThat(json.has("busyP99Micros")).isTrue();
    assertThat(json.path("wonP99Micros").asDouble(0)).isNaN();
    assertThat(json.path("distinctWinners").asInt()).isZero();
    assertThat(json.path("winsPerContender")).hasSize(1);
  }
}
