package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.testing.EmbeddedDatabase;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A slow {@link FenceListener#lost} must not delay the renewal of the fence's other leases: the
 * listener runs off the renewal timer.
 */
class SlowLostListenerTest extends FenceTestSupport {

  @Test
  void aSlowLostListenerLeavesTheOtherLeasesRenewedAndValid() throws Exception {
    CountDownLatch listenerEntered = new CountDownLatch(1);
    CountDownLatch releaseListener = new CountDownLatch(1);
    WriterFence fence =
        WriterFence.builder(recordingStore())
            .defaultTtl(Duration.ofSeconds(3))
            .renewInterval(Duration.ofMillis(500))
            .listener(
                new FenceListener() {
                  @Override
                  public void lost(FenceLease lease, String reason) {
                    listenerEntered.countDown();
                    try {
                      releaseListener.await(10, TimeUnit.SECONDS); // a listener stuck on I/O
                    } catch (InterruptedException e) {
                      Thread.currentThread().interrupt();
                    }
                  }
                })
            .build();
    FenceLease a =
        fence.tryAcquire(FenceRequest.builder(name + "-a").holderLabel("a").build()).orElseThrow();
    FenceLease b =
        fence.tryAcquire(FenceRequest.builder(name + "-b").holderLabel("b").build()).orElseThrow();
    try {
      EmbeddedDatabase.get()
          .execute(
              "UPDATE "
                  + SCHEMA
                  + ".lease SET holder_token = gen_random_uuid() WHERE fence_name = '"
                  + a.fenceName()
                  + "'");
      assertThat(listenerEntered.await(5, TimeUnit.SECONDS)).as("a was found lost").isTrue();

      // While the listener is stuck, b keeps being renewed well past its 3 s TTL.
      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(6))
          .until(() -> b.isValid() && fence.status(b.fenceName()).orElseThrow().isHeld());
      assertThat(b.lostReason()).isEmpty();
    } finally {
      releaseListener.countDown();
      fence.close();
    }
  }
}
