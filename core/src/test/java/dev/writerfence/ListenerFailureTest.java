package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.context.HeldFences;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A {@link FenceListener} that throws never costs a lease: what it throws is logged and ignored,
 * except a {@link VirtualMachineError}, which propagates after the lease it interrupted is
 * released.
 */
class ListenerFailureTest extends FenceTestSupport {

  @Test
  void listenerErrorAfterAcquireIsLoggedAndIgnoredAndTheLeaseIsReleased() throws Exception {
    WriterFence fence =
        fence(DB.dataSource())
            .listener(
                new FenceListener() {
                  @Override
                  public void acquired(FenceLease lease, int attempts, Duration waited) {
                    throw new AssertionError("a bug in the metrics code");
                  }

                  @Override
                  public void released(FenceLease lease, boolean freed) {
                    throw new LinkageError("a class the metrics code needs is missing");
                  }
                })
            .build();
    AtomicInteger ran = new AtomicInteger();

    fence.run(request("listener"), ran::incrementAndGet);

    assertThat(ran).hasValue(1);
    assertThat(sql.state(name)).isEqualTo("free");
    assertThat(HeldFences.holdsAny()).isFalse();
  }

  @Test
  void virtualMachineErrorFromTheListenerPropagatesAndReleasesTheLease() throws Exception {
    OutOfMemoryError oom = new OutOfMemoryError("simulated");
    WriterFence fence =
        fence(DB.dataSource())
            .listener(
                new FenceListener() {
                  @Override
                  public void acquired(FenceLease lease, int attempts, Duration waited) {
                    throw oom;
                  }
                })
            .build();
    AtomicInteger ran = new AtomicInteger();

    Throwable called = catchThrowable(() -> fence.call(request("oom"), ran::incrementAndGet));
    assertThat(called).isSameAs(oom);
    assertThat(ran).hasValue(0);
    assertThat(sql.state(name)).as("the lease was released").isEqualTo("free");
    assertThat(HeldFences.holdsAny()).isFalse();

    Throwable tried =
        catchThrowable(
            () -> fence.tryAcquire(FenceRequest.builder(name).holderLabel("try").ttl(TTL).build()));
    assertThat(tried).isSameAs(oom);
    assertThat(sql.state(name)).as("the tried lease was released").isEqualTo("free");
    assertThat(FencingTokens.counter(sql.fencingToken(name))).as("grants").isEqualTo(2L);
  }
}
