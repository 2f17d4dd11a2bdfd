package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A fence given an observation registry observes each acquire and each hold through the API as the
 * starter's traced application shows for woven calls: the outcomes an API caller can meet (granted,
 * {@code tryAcquire} finding it busy, a hold lost and then released), keyed by the name, the
 * backend and the fencing token; a fence without one observes nothing.
 */
class ObservedFenceTest extends FenceTestSupport {
  private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();
  private final ObservationRegistry registry = ObservationRegistry.create();

  {
    registry
        .observationConfig()
        .observationHandler(
            new ObservationHandler<>() {
              @Override
              public void onStop(Observation.Context context) {
                stopped.add(context);
              }

              @Override
              public boolean supportsContext(Observation.Context context) {
                return true;
              }
            });
  }

  @Test
  void aCallIsAnAcquireThenAHoldReleased() throws Exception {
    try (WriterFence fence = fence(DB.dataSource()).observationRegistry(registry).build()) {
      long token =
          fence
              .call(request("observed"), () -> WriterFence.current(name).orElseThrow())
              .fencingToken();

      assertThat(stopped)
          .extracting(Observation.Context::getName)
          .containsExactly("writer.fence.acquisition", "writer.fence.holding");
      Map<String, String> acquire = keys(stopped.get(0));
      assertThat(acquire)
          .containsEntry("writer.fence.name", name)
          .containsEntry("writer.fence.backend", "lease")
          .containsEntry("writer.fence.outcome", "acquired")
          .containsEntry("writer.fence.token", FencingTokens.describe(token));
      assertThat(acquire.get("writer.fence.holder")).startsWith("observed@");
      assertThat(keys(stopped.get(1)))
          .containsEntry("writer.fence.name", name)
          .containsEntry("writer.fence.outcome", "released")
          .containsEntry("writer.fence.token", FencingTokens.describe(token));
    }
  }

  @Test
  void tryAcquireOfABusyFenceIsSkipped() {
    try (WriterFence holder = fence();
        WriterFence fence = fence(DB.dataSource()).observationRegistry(registry).build()) {
      FenceLease held = holder.acquire(request("holder"));
      try {
        assertThat(fence.tryAcquire(request("observed"))).isEmpty();
      } finally {
        holder.release(held);
      }
    }
    assertThat(stopped).hasSize(1);
    assertThat(keys(stopped.get(0)))
        .containsEntry("writer.fence.outcome", "skipped")
        .doesNotContainKey("writer.fence.token");
  }

  @Test
  void aLostHoldEndsAtItsLossAndOnce() {
    try (WriterFence fence =
        fence(DB.dataSource())
            .defaultTtl(Duration.ofSeconds(3))
            .renewInterval(Duration.ofMillis(300))
            .observationRegistry(registry)
            .build()) {
      FenceLease lease = fence.acquire(request("observed"));
      takeOver();
      await().atMost(Duration.ofSeconds(10)).until(() -> stopped.size() == 2);
      Observation.Context hold = stopped.get(1);
      assertThat(keys(hold)).containsEntry("writer.fence.outcome", "lost");
      assertThat(hold.getError()).isInstanceOf(FenceLostException.class);

      fence.release(lease);
    }
    assertThat(stopped).hasSize(2); // the release after the loss ends nothing again
  }

  @Test
  void aFenceWithoutARegistryOrWithANoopOneKeepsNoObserver() throws Exception {
    // The flow then tests one null field per call: no class of Micrometer is loaded for it.
    assertThat(WriterFence.builder(DB.dataSource()).observer).isNull();
    assertThat(
            WriterFence.builder(DB.dataSource())
                .observationRegistry(ObservationRegistry.NOOP)
                .observer)
        .isNull();
    assertThat(WriterFence.builder(DB.dataSource()).observationRegistry(registry).observer)
        .isNotNull();
    try (WriterFence fence = fence()) {
      fence.call(request("plain"), () -> 1);
    }
    assertThat(stopped).isEmpty();
  }

  private static Map<String, String> keys(Observation.Context context) {
    return context.getAllKeyValues().stream()
        .collect(Collectors.toMap(KeyValue::getKey, KeyValue::getValue));
  }
}
