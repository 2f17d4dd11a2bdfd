package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.testing.OtherWriter;
import dev.writerfence.testing.SwitchableDataSource;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The enter/exit form of a fenced call, which the agent's inlined advice uses. */
class EnterExitTest extends FenceTestSupport {

  @Test
  void enterHoldsAndPushesExitReleasesWithTheMintedToken() throws Exception {
    WriterFence fence = fence();

    FencedCall call = fence.enter(request("advice"));
    assertThat(call.joined()).isFalse();
    assertThat(WriterFence.current(name)).containsSame(call.lease());
    assertThat(sql.state(name)).isEqualTo("held");

    assertThat(call.exit("result", null, String.class)).isEqualTo("result");
    assertThat(WriterFence.current(name)).isEmpty();
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void nestedEnterOfTheSameNameJoinsWithoutASecondAcquire() throws Exception {
    WriterFence fence = fence();
    FencedCall outer = fence.enter(request("outer"));

    FencedCall inner = fence.enter(request("inner"));
    assertThat(inner.joined()).isTrue();
    inner.exit(null, null, void.class);
    assertThat(sql.state(name)).as("the inner exit releases nothing").isEqualTo("held");
    assertThat(WriterFence.current(name)).containsSame(outer.lease());

    outer.exit(null, null, void.class);
    assertThat(sql.state(name)).isEqualTo("free");
    assertThat(status(fence).fencingToken()).isEqualTo(outer.lease().fencingToken());
  }

  @Test
  void busyEnterThrowsAndPushesNothing() {
    WriterFence fence = fence();
    WriterFence otherWriter = fence(); // another writer: its lease is no hold of this thread
    FenceLease other =
        OtherWriter.tryAcquire(
                otherWriter, FenceRequest.builder(name).holderLabel("other").ttl(TTL).build())
            .orElseThrow();

    assertThatThrownBy(() -> fence.enter(request("advice")))
        .isInstanceOf(WriterFenceBusyException.class);
    assertThat(WriterFence.current(name)).isEmpty();
    otherWriter.release(other);
  }

  @Test
  void releaseFailureAtExitIsSuppressedOnTheMethodsOwnException() {
    SwitchableDataSource switchable = new SwitchableDataSource(DB.dataSource());
    WriterFence fence = fence(switchable).withoutRenewal().build();
    FencedCall call = fence.enter(request("advice"));
    IllegalStateException own = new IllegalStateException("the method failed");

    switchable.cutOff();
    try {
      assertThat(call.exit(null, own, void.class)).isNull();
    } finally {
      switchable.restore();
    }
    assertThat(own.getSuppressed())
        .singleElement()
        .isInstanceOf(WriterFenceUnavailableException.class);
    assertThat(WriterFence.current(name)).isEmpty();
  }

  @Test
  void stageResultKeepsTheLeaseUntilItCompletes() throws Exception {
    WriterFence fence = fence();
    CompletableFuture<String> work = new CompletableFuture<>();
    FencedCall call = fence.enter(request("async"));

    Object returned = call.exit(work, null, CompletionStage.class);
    assertThat(returned).isNotSameAs(work).isInstanceOf(CompletableFuture.class);
    assertThat(WriterFence.current(name)).as("the thread's hold ends at exit").isEmpty();
    assertThat(sql.state(name)).as("the stage still holds the lease").isEqualTo("held");

    work.complete("written");
    assertThat(((CompletableFuture<?>) returned).get(5, TimeUnit.SECONDS)).isEqualTo("written");
    assertThat(sql.state(name)).isEqualTo("free");
  }
}
