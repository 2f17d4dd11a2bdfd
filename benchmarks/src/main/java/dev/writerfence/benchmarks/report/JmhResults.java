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
   * @param param the value of the {@code backend} parameter, else of the single parameter, or the
   *     method name when there is none
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

    /**
     * An auxiliary counter as a rate: as it is when JMH reported it per second ({@code
     * AuxCounters.Type.OPERATIONS}); when it counted events ({@code #}, summed over threads and
     * over all iterations of all forks), the mean count of one measurement iteration divided by the
     * iteration's time.
     *
     * @param name an auxiliary counter, e.g. {@code won}
     * @return events per second, or NaN when absent or in another unit
     */
    double secondaryPerSecond(String name) {
      JsonNode m = node.path("secondaryMetrics").path(name);
      String unit = m.path("scoreUnit").asText();
      if (unit.equals("ops/s")) {
        return secondary(name);
      }
      double seconds = seconds(node.path("measurementTime").asText());
      if (!unit.equals("#") || Double.isNaN(seconds)) {
        return Double.NaN;
      }
      double sum = 0;
      int iterations = 0;
      for (JsonNode fork : m.path("rawData")) {
        for (JsonNode iteration : fork) {
          sum += iteration.asDouble();
          iterations++;
        }
      }
      return iterations == 0 ? Double.NaN : sum / iterations / seconds;
    }
  }

  /** JMH's time value as written in its JSON, e.g. {@code 1 s} or {@code 500 ms}; else NaN. */
  static double seconds(String timeValue) {
    String[] parts = timeValue.trim().split(" ");
    if (parts.length != 2) {
      return Double.NaN;
    }
    try {
      double n = Double.parseDouble(parts[0]);
      return switch (parts[1]) {
        case "s" -> n;
        case "ms" -> n / 1000;
        case "min" -> n * 60;
        default -> Double.NaN;
      };
    } catch (NumberFormatException e) {
      return Double.NaN;
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
      // The backend names a row where there is one (the contention benchmark has other
      // parameters beside it, each of a single value per file).
      String param =
          params.has("backend")
              ? params.get("backend").asText()
              : params.isObject() && params.size() > 0 ? params.elements().next().asText() : method;
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
