package dev.writerfence.spring.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * In a Spring Boot 4 application with Micrometer Tracing, a fenced HTTP request shows the fence at
 * work: the request's span has an acquire span and a hold span as children, keyed by the fence
 * name's template, the backend, the outcome, the holder and the fencing token; a call that stays
 * busy has an acquire span with outcome busy and its place in the queue.
 */
class FenceTracesTest extends TracedAppTestBase {

  @Test
  void aFencedRequestHasAnAcquireAndAHoldSpanUnderItsOwn() throws Exception {
    String corpus = newCorpus();

    HttpResponse<String> answer = get("/corpus/" + corpus);

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).isEqualTo("written " + corpus);
    List<SpanData> all = spansOfRequest();
    SpanData request = only(all, REQUEST_SPAN);
    SpanData acquire = only(all, "writer-fence acquire");
    SpanData hold = only(all, "writer-fence hold");
    assertThat(acquire.getTraceId()).isEqualTo(request.getTraceId());
    assertThat(acquire.getParentSpanId()).isEqualTo(request.getSpanId());
    assertThat(hold.getParentSpanId()).isEqualTo(request.getSpanId());
    // The hold begins when the acquire ends.
    assertThat(hold.getStartEpochNanos()).isGreaterThanOrEqualTo(acquire.getEndEpochNanos());

    assertThat(attr(acquire, "writer.fence.name")).isEqualTo("corpus:{0}");
    assertThat(attr(acquire, "writer.fence.backend")).isEqualTo("lease");
    assertThat(attr(acquire, "writer.fence.outcome")).isEqualTo("acquired");
    assertThat(attr(acquire, "writer.fence.hand-over")).isIn("notified", "polled", "pending");
    assertThat(attr(acquire, "writer.fence.holder")).startsWith("corpus-writer@");
    String token = attr(acquire, "writer.fence.token");
    assertThat(token).matches("\\d+\\.\\d+");

    assertThat(attr(hold, "writer.fence.name")).isEqualTo("corpus:{0}");
    assertThat(attr(hold, "writer.fence.backend")).isEqualTo("lease");
    assertThat(attr(hold, "writer.fence.outcome")).isEqualTo("released");
    assertThat(attr(hold, "writer.fence.token")).isEqualTo(token);
    assertThat(attr(hold, "writer.fence.holder")).startsWith("corpus-writer@");
    assertThat(attr(hold, "writer.fence.taken-by")).contains("CorpusWriter.write");
  }

  @Test
  void aBusyCallHasAnAcquireSpanWithOutcomeBusyAndItsPlace() throws Exception {
    String corpus = newCorpus();
    // Another instance holds the corpus's fence for the whole call.
    try (WriterFence other = WriterFence.builder(EmbeddedDatabase.get().dataSource()).build()) {
      FenceLease held = other.acquire(FenceRequest.of("corpus:" + corpus));
      try {
        HttpResponse<String> answer = get("/corpus/" + corpus);

        assertThat(answer.statusCode()).isEqualTo(409);
        assertThat(answer.body()).isEqualTo("busy at place 1");
      } finally {
        other.release(held);
      }
    }
    List<SpanData> all = spansOfRequest();
    SpanData request = only(all, REQUEST_SPAN);
    SpanData acquire = only(all, "writer-fence acquire");
    assertThat(acquire.getParentSpanId()).isEqualTo(request.getSpanId());
    assertThat(attr(acquire, "writer.fence.name")).isEqualTo("corpus:{0}");
    assertThat(attr(acquire, "writer.fence.outcome")).isEqualTo("busy");
    assertThat(attr(acquire, "writer.fence.place")).isEqualTo("1");
    assertThat(attr(acquire, "writer.fence.token")).isNull();
    assertThat(all).noneMatch(s -> s.getName().equals("writer-fence hold"));
  }

  private static SpanData only(List<SpanData> spans, String name) {
    List<SpanData> named = spans.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named %s among %s", name, spans).hasSize(1);
    return named.get(0);
  }

  private static String attr(SpanData span, String key) {
    return span.getAttributes().get(AttributeKey.stringKey(key));
  }
}
