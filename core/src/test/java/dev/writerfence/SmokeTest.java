package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SmokeTest {
  @Test
  void acquireBusyReleaseReacquire() throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    WriterFence fence = WriterFence.builder(db.dataSource()).build();
    String name = "smoke-" + UUID.randomUUID();
    Optional<FenceLease> first = fence.tryAcquire(name, "a", Duration.ofSeconds(30));
    assertThat(first).isPresent();
    assertThat(fence.tryAcquire(name, "b", Duration.ofSeconds(30))).isEmpty();
    assertThat(fence.release(first.get())).isTrue();
    Optional<FenceLease> second = fence.tryAcquire(name, "b", Duration.ofSeconds(30));
    assertThat(second).isPresent();
    assertThat(second.get().fencingToken()).isGreaterThan(first.get().fencingToken());
    assertThat(fence.call(FenceRequest.of(name + "x"), () -> WriterFence.current(name + "x")))
        .isPresent();
  }
}
