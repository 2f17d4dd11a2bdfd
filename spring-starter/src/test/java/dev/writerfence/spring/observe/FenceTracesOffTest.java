package dev.writerfence.spring.observe;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.spring.boot.WriterFenceObservations;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

/**
 * With {@code writer-fence.observations.enabled=false} the fence is given no observation registry:
 * a fenced request is traced, and the fence adds no span to it.
 */
@TestPropertySource(properties = "writer-fence.observations.enabled=false")
class FenceTracesOffTest extends TracedAppTestBase {

  @Autowired ObjectProvider<WriterFenceObservations> observations;

  @Test
  void aFencedRequestHasNoSpanOfTheFence() throws Exception {
    assertThat(observations.getIfAvailable()).isNull();

    assertThat(get("/corpus/" + newCorpus()).statusCode()).isEqualTo(200);

    List<SpanData> all = spansOfRequest();
    assertThat(all).anyMatch(TracedAppTestBase::isRequest);
    assertThat(all).noneMatch(s -> s.getName().startsWith("writer-fence"));
  }
}
