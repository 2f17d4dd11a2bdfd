package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFences;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The work the agent defers to the first hold of a JVM (carrying holds to handed-off tasks): it
 * runs once, after the lease is taken and before the hold is recorded, and a hold its own thread
 * records while it runs does not run it again.
 */
class FirstHoldHookTest extends FenceTestSupport {
  @Test
  void theHookRunsOnceBeforeTheNextHoldAndNotAgainFromItsOwnThread() throws Exception {
    WriterFence fence = fence();
    AtomicInteger runs = new AtomicInteger();
    AtomicBoolean heldWhileRunning = new AtomicBoolean(true);
    AtomicInteger nested = new AtomicInteger();
    HeldFenceStack.beforeFirstHold(
        () -> {
          runs.incrementAndGet();
          heldWhileRunning.set(HeldFences.holdsAny());
          try {
            // Another name: the outer call's lease is taken already, only not yet recorded.
            fence.call(
                FenceRequest.builder(name + "-inside").holderLabel("inside").ttl(TTL).build(),
                nested::incrementAndGet);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });

    fence.call(request("first"), () -> null);
    fence.call(request("second"), () -> null);

    assertThat(runs).as("runs of the hook").hasValue(1);
    assertThat(heldWhileRunning).as("a hold recorded before the hook ran").isFalse();
    assertThat(nested).as("the hook's own fenced call ran").hasValue(1);
  }
}
