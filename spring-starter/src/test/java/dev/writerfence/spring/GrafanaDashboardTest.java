package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceMetricsAutoConfiguration;
import dev.writerfence.spring.metrics.FenceWakeUpGauge;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The Grafana dashboard in {@code docs/grafana/writer-fence.json} queries only what the starter
 * exposes: the starter's meters are registered by real fenced calls on embedded PostgreSQL (one
 * acquired, one refused busy) into a Prometheus registry, scraped, and every series name and label
 * each PromQL expression of the dashboard names must be in that scrape; and every meter of the
 * scrape is on the dashboard. Label values are not compared, except that the {@code fence}
 * variable's query finds the fence name of the calls.
 */
class GrafanaDashboardTest {
  private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "writer-fence.json");

  /** Labels Prometheus adds to every series at scrape time, not the application. */
  private static final Set<String> TARGET_LABELS = Set.of("instance", "job");

  /** The one meter without a fence tag: the instance's hand-over mode. */
  private static final String FENCE_LESS = "writer_fence_queue_notified";

  private static final Pattern SERIES =
      Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})? \\S+.*$");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"");
  private static final Pattern QUERIED =
      Pattern.compile("\\b(writer_fence_[a-z0-9_]+)\\s*(?:\\{([^}]*)})?");
  private static final Pattern MATCHER =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)");
  private static final Pattern BY = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
  private static final Pattern LABEL_VALUES =
      Pattern.compile("label_values\\(\\s*(writer_fence_[a-z0-9_]+)\\s*,\\s*(\\w+)\\s*\\)");

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  WriterFenceMetricsAutoConfiguration.class, WriterFenceAutoConfiguration.class))
          .withBean(DataSource.class, () -> EmbeddedDatabase.get().dataSource())
          .withBean(
              PrometheusMeterRegistry.class,
              () -> new PrometheusMeterRegistry(PrometheusConfig.DEFAULT))
          .withPropertyValues("writer-fence.holder=dashboard");

  @Test
  void everySeriesAndLabelTheDashboardQueriesIsAStarterMeterAndEveryMeterIsShown()
      throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    List<String> queries = queries(dashboard);
    assertThat(queries).as("the dashboard's PromQL").hasSizeGreaterThan(10);
    String fenceName = FenceNames.random("dashboard");
    Map<String, Set<String>> exposed = new TreeMap<>();
    Map<String, Set<String>> fenceValues = new TreeMap<>();
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
          context.getBean(FenceWakeUpGauge.class).bindTo(registry); // Boot binds MeterBinders
          fencedCalls(context.getBean(WriterFence.class), fenceName);
          scrape(registry.scrape(), exposed, fenceValues);
        });
    assertThat(exposed).as("the starter's meters were scraped").isNotEmpty();

    List<String> problems = new ArrayList<>();
    for (String query : queries) {
      problems.addAll(unknownSeriesAndLabels(query, exposed));
    }
    for (String series : exposed.keySet()) {
      String meter = series.replaceFirst("_(bucket|count|sum|max|total)$", "");
      if (queries.stream().noneMatch(q -> q.contains(meter))) {
        problems.add(
            "the starter's meter "
                + series
                + " is on no panel of "
                + DASHBOARD
                + ": add a panel (docs/observability.md lists the meters)");
      }
    }
    assertThat(problems).as(String.join("\n", queries)).isEmpty();

    Matcher variable = LABEL_VALUES.matcher(String.join("\n", queries));
    assertThat(variable.find()).as("the fence variable's label_values query").isTrue();
    assertThat(variable.group(2)).isEqualTo("fence");
    assertThat(fenceValues.get(variable.group(1)))
        .as("the fence variable lists the fence of the calls")
        .contains(fenceName);
  }

  @Test
  void theDataSourceIsTheTemplatedPrometheusInputAndFencePanelsFollowTheVariable()
      throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());

    assertThat(dashboard.get("__inputs").findValuesAsText("name")).containsExactly("DS_PROMETHEUS");
    assertThat(dashboard.get("__inputs").findValuesAsText("pluginId"))
        .containsExactly("prometheus");
    List<JsonNode> dataSources = dashboard.findValues("datasource");
    assertThat(dataSources)
        .isNotEmpty()
        .allSatisfy(
            d -> {
              assertThat(d.get("type").asText()).isEqualTo("prometheus");
              assertThat(d.get("uid").asText()).isEqualTo("${DS_PROMETHEUS}");
            });
    assertThat(queries(dashboard))
        .filteredOn(q -> !q.startsWith("label_values") && !q.contains(FENCE_LESS))
        .isNotEmpty()
        .allSatisfy(q -> assertThat(q).contains("fence=~\"$fence\""));
  }

  @Test
  void theCheckFindsAnUnknownSeriesOrLabel() {
    Map<String, Set<String>> exposed = Map.of("writer_fence_busy_total", Set.of("fence", "holder"));

    assertThat(unknownSeriesAndLabels("sum by (fence) (writer_fence_busy_total)", exposed))
        .isEmpty();
    assertThat(unknownSeriesAndLabels("rate(writer_fence_busy{fence=~\"$fence\"}[1m])", exposed))
        .singleElement()
        .asString()
        .contains("writer_fence_busy", "no such series");
    assertThat(unknownSeriesAndLabels("writer_fence_busy_total{bucket=\"x\"}", exposed))
        .singleElement()
        .asString()
        .contains("label 'bucket'");
    assertThat(unknownSeriesAndLabels("sum by (outcome) (writer_fence_busy_total)", exposed))
        .singleElement()
        .asString()
        .contains("label 'outcome'");
  }

  /** One call acquires, one call of another thread meanwhile is refused busy at once. */
  private static void fencedCalls(WriterFence fence, String fenceName) throws Exception {
    FenceRequest once =
        FenceRequest.builder(fenceName).retryPolicy(BusyRetryPolicy.noRetry()).build();
    fence.call(
        FenceRequest.of(fenceName),
        () -> {
          CompletableFuture<Void> other =
              CompletableFuture.runAsync(
                  () -> {
                    try {
                      fence.call(once, () -> null);
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  });
          assertThatThrownBy(other::join).hasRootCauseInstanceOf(WriterFenceBusyException.class);
          return null;
        });
  }

  /** Every series name of the scrape, with its label names, and each one's fence values. */
  private static void scrape(
      String text, Map<String, Set<String>> exposed, Map<String, Set<String>> fenceValues) {
    for (String line : text.lines().toList()) {
      Matcher m = SERIES.matcher(line);
      if (line.startsWith("#") || !m.matches() || !m.group(1).startsWith("writer_fence_")) {
        continue;
      }
      Set<String> labels = exposed.computeIfAbsent(m.group(1), n -> new TreeSet<>());
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.add(l.group(1));
        }
        Matcher fence = Pattern.compile("fence=\"([^\"]*)\"").matcher(m.group(2));
        if (fence.find()) {
          fenceValues.computeIfAbsent(m.group(1), n -> new TreeSet<>()).add(fence.group(1));
        }
      }
    }
  }

  /**
   * @return what in {@code query} is not exposed: a series, a label one of its series is matched
   *     on, a label an aggregation keeps ({@code by}) that no series of the query has, or the label
   *     of a {@code label_values} query
   */
  static List<String> unknownSeriesAndLabels(String query, Map<String, Set<String>> exposed) {
    List<String> problems = new ArrayList<>();
    Set<String> labelsOfQuery = new TreeSet<>(TARGET_LABELS);
    Matcher m = QUERIED.matcher(query);
    while (m.find()) {
      String series = m.group(1);
      Set<String> labels = exposed.get(series);
      if (labels == null) {
        problems.add(series + ": no such series among the starter's meters " + exposed.keySet());
        continue;
      }
      labelsOfQuery.addAll(labels);
      if (series.endsWith("_bucket")) {
        labelsOfQuery.add("le");
      }
      if (m.group(2) != null) {
        Matcher matcher = MATCHER.matcher(m.group(2));
        while (matcher.find()) {
          if (!labels.contains(matcher.group(1)) && !TARGET_LABELS.contains(matcher.group(1))) {
            problems.add(series + ": no label '" + matcher.group(1) + "' (has " + labels + ")");
          }
        }
      }
    }
    Matcher by = BY.matcher(query);
    while (by.find()) {
      for (String label : by.group(1).split(",")) {
        String name = label.strip();
        if (!name.isEmpty() && !labelsOfQuery.contains(name)) {
          problems.add(query + ": aggregates by label '" + name + "', which no series of it has");
        }
      }
    }
    Matcher values = LABEL_VALUES.matcher(query);
    while (values.find()) {
      Set<String> labels = exposed.getOrDefault(values.group(1), Set.of());
      if (!labels.contains(values.group(2))) {
        problems.add(query + ": no label '" + values.group(2) + "' on " + values.group(1));
      }
    }
    return problems;
  }

  /** Every PromQL text of the dashboard: the panels' targets and the variables' queries. */
  private static List<String> queries(JsonNode dashboard) {
    List<String> queries = new ArrayList<>();
    dashboard.findValues("expr").forEach(e -> queries.add(e.asText()));
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      queries.add(variable.path("definition").asText());
      queries.add(variable.path("query").path("query").asText());
    }
    assertThat(Files.exists(DASHBOARD)).isTrue();
    return queries;
  }
}
