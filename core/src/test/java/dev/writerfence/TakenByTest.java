package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.example.taker.Takers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every hold names who took it, for the audit's writer map: the fenced method for a woven call, the
 * first frame outside writer-fence's packages for the Java API; a joined call and a thread the hold
 * was carried to see the original taker.
 */
class TakenByTest extends FenceTestSupport {
  private static final String TAKERS = Takers.class.getName();
  private final ExecutorService pool = Executors.newSingleThreadExecutor();
  private final WriterFence fence = fence();

  @AfterEach
  void stop() throws Exception {
    pool.shutdownNow();
    fence.close();
  }

  @Test
  void aCallThroughTheApiIsTakenByTheMethodThatCalledIt() throws Exception {
    assertThat(Takers.viaCall(fence, request("call")))
        .as("the frame that called WriterFence.call, not the lambda, not writer-fence's own")
        .startsWith(TAKERS + ".viaCall(Takers.java:");
  }

  @Test
  void anAcquireIsTakenByItsCaller() throws Exception {
    assertThat(Takers.viaAcquire(fence, request("acquire")))
        .startsWith(TAKERS + ".viaAcquire(Takers.java:");
  }

  @Test
  void aJoinedCallKeepsTheOuterTaker() throws Exception {
    String taker = Takers.nested(fence, request("nested"));
    assertThat(taker).startsWith(TAKERS + ".nested(Takers.java:");
  }

  @Test
  void aHoldCarriedToAnotherThreadKeepsItsTaker() throws Exception {
    assertThat(Takers.carried(fence, request("carried"), pool))
        .startsWith(TAKERS + ".carried(Takers.java:");
  }

  @Test
  void aWovenCallIsTakenByTheFencedMethod() throws Throwable {
    assertThat(Takers.woven(fence, name)).isEqualTo(TAKERS + ".annotated(String, int)");
  }

  @Test
  void nothingIsHeldAfterwards() throws Exception {
    Takers.viaCall(fence, request("done"));
    assertThat(HeldFenceStack.find(name)).isNull();
  }
}
