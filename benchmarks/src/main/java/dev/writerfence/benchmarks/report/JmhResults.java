package dev.writerfence.benchmarks.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The rows of JMH's JSON result files that the report reads. */
final class JmhResults {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * One benchmark × parameter result.
   *
   * @param method the benchmark method's simple name, e.g. {@code cycle}
   * @param threads JMH threads
   * @param param the value of the single parameter, or the method name when it has none
   * @param score the primary score
   * @param error its 99.9% half-width (NaN with a single iteration)
   * @param unit the primary score's unit
   * @param node the whole JSON row, for secondary metrics
   */
  record Row(
      String method,
      int threads,
      String param,
      double score,
      double error,
      String unit,
      JsonNode node) {

    /**
     * @param p a percentile as JMH names it, e.g. {@code 50.0}
     * @return the primary metric's value at it (sample mode only), or NaN when absent
     */
    double percentile(String p) {
      JsonNode m = node.path("primaryMetric").path("scorePercentiles").path(p);
      return m.isNumber() ? m.asDouble() : Double.NaN;
    }

    /**
     * @param name an auxiliary counter, e.g. {@code won}
     * @return its score, or NaN when absent
     */
    double secondary(String name) {
      JsonNode m = node.path("secondaryMetrics").path(name).path("score");
      return m.isNumber() ? m.asDouble() : Double.NaN;
    }
  }

  private JmhResults() {}

  /**
   * @param file a JMH JSON result file
   * @return its rows; empty when the file does not exist (not measured in this plan)
   * @throws IOException when it cannot be read
   */
  static List<Row> read(Path file) throws IOException {
    List<Row> rows = new ArrayList<>();
    if (!Files.exists(file)) {
      return rows;
    }
    for (JsonNode n : JSON.readTree(file.toFile())) {
      String benchmark = n.path("benchmark").asText();
      String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
      JsonNode params = n.path("params");
      String param =
          params.isObject() && params.size() > 0 ? params.elements().next().asText() : method;
      JsonNode primary = n.path("primaryMetric");
      rows.add(
          new Row(
              method,
              n.path("threads").asInt(),
              param,
              primary.path("score").asDouble(),
              primary.path("scoreError").asDouble(Double.NaN),
              primary.path("scoreUnit").asText(),
              n));
    }
    return rows;
  }

  /**
   * @param rows rows
   * @param param the parameter value (or method name)
   * @return the row of that value
   */
  static Optional<Row> find(List<Row> rows, String param) {
    return rows.stream().filter(r -> r.param().equals(param)).findFirst();
  }
}
