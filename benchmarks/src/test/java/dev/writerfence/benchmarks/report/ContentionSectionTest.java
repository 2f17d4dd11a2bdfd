package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.benchmarks.measure.ContentionShape;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ContentionSectionTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @BeforeEach
  void environment() throws Exception {
    Files.writeString(dir.resolve("environment.json"), "{\"plan\":{\"name\":\"quick\"}}");
  }

  /**
   * A JMH result file of one thread count with the lease's row, params as JMH writes them. Counters
   * as events (two iterations of 2 s in one fork) when {@code params} name a shape, else as
   * operations per second, as runs before the shapes wrote them.
   */
  private void jmh(String file, Map<String, String> params, int threads, double won, double busy)
      throws Exception {
    ArrayNode rows = JSON.createArrayNode();
    ObjectNode row = rows.addObject();
    row.put("benchmark", "dev.writerfence.benchmarks.jmh.ContentionBenchmark.attempt");
    row.put("threads", threads);
    row.put("measurementTime", "2 s");
    params.forEach(row.putObject("params")::put);
    row.putObject("primaryMetric").put("score", won + busy).put("scoreUnit", "ops/s");
    ObjectNode secondary = row.putObject("secondaryMetrics");
    boolean events = params.containsKey("mode");
    Map.of("won", won, "busy", busy, "unavailable", 0.0)
        .forEach(
            (name, perSecond) -> {
              ObjectNode m = secondary.putObject(name);
              if (events) {
                m.put("score", perSecond * 4).put("scoreUnit", "#");
                m.putArray("rawData").addArray().add(perSecond * 2).add(perSecond * 2);
              } else {
                m.put("score", perSecond).put("scoreUnit", "ops/s");
              }
            });
    JSON.writeValue(dir.resolve(file).toFile(), rows);
  }

  private void record(String file, int threads, Double busyP99, double wonP99) throws Exception {
    ObjectNode r = JSON.createObjectNode();
    r.put("backend", "lease").put("threads", threads).put("distinctWinners", threads);
    r.put("busyOutcomes", busyP99 == null ? 0 : 10);
    r.put("busyP50Micros", busyP99 == null ? Double.NaN : busyP99 / 2);
    r.put("busyP99Micros", busyP99 == null ? Double.NaN : busyP99);
    r.put("wonP50Micros", wonP99 / 2).put("wonP99Micros", wonP99);
    JSON.writeValue(dir.resolve(file).toFile(), r);
  }

  private void shape(ContentionShape shape, double wonAt64, Double busyP99At64) throws Exception {
    Map<String, String> params =
        Map.of(
            "backend", "lease",
            "contenders", shape.contenders().id(),
            "mode", shape.mode().id());
    jmh(shape.jmhFile(1), params, 1, 800, 0);
    record(shape.recordFile("lease", 1), 1, null, 1_000);
    jmh(shape.jmhFile(64), params, 64, wonAt64, 100);
    record(shape.recordFile("lease", 64), 64, busyP99At64, 80_000);
  }

  private String report() throws Exception {
    Report.write(dir, null);
    return Files.readString(dir.resolve("results.md"));
  }

  @Test
  void eachShapeHasItsTableChartsAndLabelledVerdicts() throws Exception {
    shape(ContentionShape.of("threads", "try"), 760, 2_000.0);
    shape(ContentionShape.of("processes", "try"), 40, 90_000.0);
    shape(ContentionShape.of("threads", "retry"), 700, null);

    String md = report();

    assertThat(md)
        .contains("#### threads / try: threads of one process")
        .contains("#### processes / try: stand-ins for separate processes")
        .contains("#### threads / retry: threads of one process")
        .doesNotContain("#### processes / retry")
        .contains(
            "| lease, threads / try: critical sections/s at 64 contenders ÷ 1 writer | ≥ 0.80 | 0.95 | not judged: contenders that never pause")
        .contains(
            "| lease, threads / try: busy outcome p99 at 64 contenders | < 5 ms | 2.00 ms | pass |")
        .contains(
            "| lease, processes / try: critical sections/s at 64 contenders ÷ 1 writer | ≥ 0.80 | 0.05 | not judged")
        .contains(
            "| lease, processes / try: busy outcome p99 at 64 contenders | < 5 ms | 90.0 ms | **miss**")
        .contains(
            "| lease, threads / retry: critical sections/s at 64 contenders ÷ 1 writer | ≥ 0.80 | 0.88 | pass |")
        .contains(
            "| lease, threads / retry: busy outcomes at 64 contenders | < 5 ms p99 (judged on one try) | 0 busy | not judged")
        // time to win p50 and p99 of the retry row at 64 contenders
        .contains("| lease | 64 | 700.0 | 100.0 | 0.00 | n/a | n/a | 40.0 | 80.0 | 64 of 64 |");
    for (String id : new String[] {"threads-try", "processes-try", "threads-retry"}) {
      assertThat(dir.resolve("contention-" + id + ".png")).isNotEmptyFile();
      assertThat(dir.resolve("contention-" + id + "-latency.png")).isNotEmptyFile();
    }
  }

  @Test
  void filesOfARunBeforeTheShapesStillRenderLabelledAsSuch() throws Exception {
    jmh("contention-t1.json", Map.of("backend", "lease"), 1, 860, 0);
    record("contention-lease-t1.json", 1, null, Double.NaN);
    jmh("contention-t64.json", Map.of("backend", "lease"), 64, 34, 5_000);
    record("contention-lease-t64.json", 64, 114_584.0, Double.NaN);

    String md = report();

    assertThat(md)
        .contains("#### before the shapes: files of a run made before in-process turns")
        .contains("run the plan again to measure the shapes")
        .contains(
            "| lease, before the shapes: critical sections/s at 64 contenders ÷ 1 writer | ≥ 0.80 | 0.04 | not judged")
        .contains(
            "| lease, before the shapes: busy outcome p99 at 64 contenders | < 5 ms | 114.6 ms | **miss**");
  }

  @Test
  void aRunWithoutContentionSaysSo() throws Exception {
    assertThat(report()).contains("### Contention").contains("Not measured in this run.");
  }
}
