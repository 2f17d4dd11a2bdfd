package dev.writerfence.spring.observe;

import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.annotation.WriterFenced;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.List;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A Spring Boot 4 application with Micrometer Tracing over OpenTelemetry, its spans kept in memory
 * ({@link InMemorySpanExporter}, exported as each ends), and one fenced write behind an HTTP
 * endpoint. Spring Boot's own observation registry gets the tracing handler as it gets any {@code
 * ObservationHandler} bean; Spring MVC observes each request.
 */
@SpringBootApplication(scanBasePackages = "none")
@Import({TracedApp.CorpusWriter.class, TracedApp.CorpusController.class})
public class TracedApp {

  @Bean
  InMemorySpanExporter spans() {
    return InMemorySpanExporter.create();
  }

  @Bean(destroyMethod = "close")
  SdkTracerProvider tracerProvider(InMemorySpanExporter spans) {
    return SdkTracerProvider.builder()
        .setSampler(Sampler.alwaysOn())
        .addSpanProcessor(SimpleSpanProcessor.create(spans))
        .build();
  }

  @Bean
  Tracer tracer(SdkTracerProvider provider) {
    OtelCurrentTraceContext context = new OtelCurrentTraceContext();
    return new OtelTracer(
        provider.get("traced-app"),
        context,
        event -> {},
        new OtelBaggageManager(context, List.of(), List.of()));
  }

  @Bean
  DefaultTracingObservationHandler tracingHandler(Tracer tracer) {
    return new DefaultTracingObservationHandler(tracer);
  }

  /** The fenced write: one corpus at a time, waiting at most half a second in the queue. */
  public static class CorpusWriter {
    @WriterFenced(value = "corpus:{0}", holder = "corpus-writer", retryMaxWaitMillis = 500)
    public String write(String corpus) {
      return "written " + corpus;
    }
  }

  /** {@code GET /corpus/{id}}: 200 with the write's answer, 409 when the fence stayed busy. */
  @RestController
  public static class CorpusController {
    private final CorpusWriter writer;

    CorpusController(CorpusWriter writer) {
      this.writer = writer;
    }

    @GetMapping("/corpus/{id}")
    ResponseEntity<String> write(@PathVariable("id") String id) {
      try {
        return ResponseEntity.ok(writer.write(id));
      } catch (WriterFenceBusyException busy) {
        return ResponseEntity.status(409).body("busy at place " + busy.place());
      }
    }
  }
}
