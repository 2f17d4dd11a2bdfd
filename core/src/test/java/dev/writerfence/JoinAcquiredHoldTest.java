package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.testing.RecordingLeaseStore;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A lease this thread took with {@code tryAcquire} or {@code acquire} is a hold that a fenced call
 * of the same fence and name on the same thread joins, instead of waiting for its own turn.
 */
class JoinAcquiredHoldTest extends FenceTestSupport {

  /** Long enough that waiting it out would be a defect: 5 attempts, 10 s apart. */
  private static final BusyRetryPolicy SLOW_RETRY =
      new BusyRetryPolicy(5, Duration.ofSeconds(10), 1.0, Duration.ofSeconds(10), 0.0);

  @Test
  void fencedCallJoinsTheThreadsTryAcquireHold() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = slowFence(store);
    FenceLease held = fence.tryAcquire(request("try")).orElseThrow();
    AtomicReference<FenceLease> seen = new AtomicReference<>();

    String result =
        fence.call(
            request("call"),
            () -> {
              seen.set(WriterFence.current(name).orElseThrow());
              return "ran";
            });

    assertThat(result).isEqualTo("ran");
    assertThat(seen.get()).as("the running code sees the joined lease").isSameAs(held);
    assertThat(store.acquireTokens()).as("no second acquire").hasSize(1);
    assertThat(store.releaseTokens()).as("the joined call releases nothing").isEmpty();
    assertThat(sql.state(name)).isEqualTo("held");
    assertThat(WriterFence.current(name)).as("outside the call, until released").containsSame(held);
    assertThat(fence.release(held)).isTrue();
    assertThat(WriterFence.current(name)).as("after the release").isEmpty();
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void enterJoinsTheThreadsAcquireHoldAndExitKeepsIt() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = slowFence(store);
    FenceLease held = fence.acquire(request("acquire"));

    FencedCall call = fence.enter(request("advice"));
    assertThat(call.joined()).isTrue();
    assertThat(WriterFence.current(name)).containsSame(held);
    call.exit(null, null, void.class);

    assertThat(held.isValid()).isTrue();
    assertThat(store.acquireTokens()).hasSize(1);
    assertThat(fence.release(held)).isTrue();
  }

  @Test
  void anotherThreadsTryAcquireHoldIsNotJoined() throws Exception {
    WriterFence fence = fence();
    FenceLease theirs =
        CompletableFuture.supplyAsync(() -> fence.tryAcquire(request("theirs")).orElseThrow())
            .get();
    try {
      assertThatThrownBy(() -> fence.run(request("mine"), () -> {}))
          .isInstanceOf(WriterFenceBusyException.class);
    } finally {
      fence.release(theirs);
    }
  }

  @Test
  void secondAcquireOnTheHoldingThreadIsBusyAtOnceWithoutAStatement() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = slowFence(store);
    FenceLease held = fence.tryAcquire(request("first")).orElseThrow();

    assertThat(fence.tryAcquire(request("second"))).isEmpty();
    assertThatThrownBy(() -> fence.acquire(request("third")))
        .isInstanceOfSatisfying(
            WriterFenceBusyException.class, e -> assertThat(e.attempts()).isZero());
    assertThat(store.acquireTokens()).as("only the first acquire asked the database").hasSize(1);
    assertThat(fence.release(held)).isTrue();
  }

  @Test
  void runThrowsTheBodysCheckedExceptionAndReleases() throws Exception {
    WriterFence fence = fence();
    IOException own = new IOException("disk full");

    assertThatThrownBy(
            () ->
                fence.run(
                    request("io"),
                    () -> {
                      throw own;
                    }))
        .isSameAs(own);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  private static WriterFence slowFence(RecordingLeaseStore store) {
    return WriterFence.builder(store).retryPolicy(SLOW_RETRY).defaultTtl(TTL).build();
  }
}
