package dev.writerfence.spring.observe;

import static org.awaitility.Awaitility.await;

import dev.writerfence.testing.EmbeddedDatabase;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@link TracedApp} on the embedded PostgreSQL with a web server on 127.0.0.1, called over HTTP,
 * its spans read from memory.
 */
@SpringBootTest(
    classes = TracedApp.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "server.address=127.0.0.1",
      "spring.flyway.enabled=false",
      "spring.liquibase.enabled=false",
      "writer-fence.holder=traced-app",
      "logging.level.root=WARN"
    })
// Closed after each class: its server and pools do not stay in the context cache to the JVM's exit.
@DirtiesContext
abstract class TracedAppTestBase {
  static final String REQUEST_SPAN = "http get /corpus/{id}";

  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort int port;

  @Autowired InMemorySpanExporter spans;

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    registry.add("spring.datasource.url", db::jdbcUrl);
    registry.add("spring.datasource.username", () -> "postgres");
  }

  @BeforeEach
  void forgetEarlierSpans() {
    spans.reset();
  }

  /** A corpus no other test writes: fence names are shared by every test of this JVM. */
  static String newCorpus() {
    return "c" + UUID.randomUUID().toString().substring(0, 8);
  }

  HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /**
   * The spans once the request's own has ended: Spring MVC ends it after the response is written,
   * so the client may have its answer first.
   */
  List<SpanData> spansOfRequest() {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> spans.getFinishedSpanItems().stream().anyMatch(s -> isRequest(s)));
    return spans.getFinishedSpanItems();
  }

  static boolean isRequest(SpanData span) {
    return span.getName().equals(REQUEST_SPAN);
  }
}
