package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFences;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A lease lost while its fenced call runs stays the call's lease until the call ends: {@code
 * WriterFence.current(name).orElseThrow().checkValid()}, the documented idiom before each write,
 * throws {@link FenceLostException} naming why, never {@code NoSuchElementException}. The lost
 * lease is still not held: no nested call joins it and the audit does not count it.
 */
class LostLeaseStaysCurrentTest extends FenceTestSupport {
  private static final Duration RENEW = Duration.ofMillis(200);

  private static WriterFence renewingFence() {
    return fence(DB.dataSource()).renewInterval(RENEW).build();
  }

  /** Registers for the loss of {@code lease}: the returned latch opens once renewal found it. */
  private static CountDownLatch lossOf(FenceLease lease) {
    CountDownLatch lost = new CountDownLatch(1);
    lease.onLost(e -> lost.countDown());
    return lost;
  }

  /** Another session frees the row behind the holder's back, as {@code release --force} does. */
  private void freedByAnother() {
    DB.execute(
        "UPDATE "
            + SCHEMA
            + ".lease SET holder_token = NULL, expires_at = clock_timestamp() WHERE fence_name = '"
            + name
            + "'");
  }

  @Test
  void aLeaseTakenOverStaysCurrentAndCheckValidNamesTheLoss() throws Exception {
    WriterFence fence = renewingFence();
    Throwable[] thrown = new Throwable[1];

    fence.run(
        request("victim"),
        () -> {
          FenceLease lease = WriterFence.current(name).orElseThrow();
          CountDownLatch lost = lossOf(lease);
          takeOver();
          assertThat(lost.await(10, TimeUnit.SECONDS)).as("renewal found the loss").isTrue();

          assertThat(WriterFence.current(name)).as("still the call's lease").containsSame(lease);
          assertThat(fence.currentLease(name)).containsSame(lease);
          thrown[0] = catchThrowable(() -> WriterFence.current(name).orElseThrow().checkValid());
          assertThat(thrown[0])
              .isInstanceOf(FenceLostException.class)
              .hasMessageContaining(lease.lostReason().orElseThrow())
              .hasMessageContaining("expired or taken over");
          assertThat(((FenceLostException) thrown[0]).reason())
              .isEqualTo(lease.lostReason().orElseThrow());
          // Shown, not held: nothing joins it and the audit counts no write under it.
          assertThat(HeldFenceStack.holds(name)).isFalse();
          assertThat(HeldFences.find(name)).isEmpty();
          assertThat(HeldFences.holdsAny()).isFalse();
        });

    assertThat(thrown[0]).isNotNull();
    assertThat(WriterFence.current(name)).as("after the call").isEmpty();
    assertThat(fence.currentLease(name)).isEmpty();
    assertThat(HeldFenceStack.current()).isEmpty();
  }

  @Test
  void aNestedCallInsideALostHoldTakesItsOwnLeaseAndTheLostOneComesBackAfterIt() throws Exception {
    WriterFence fence = renewingFence();

    long[] tokens =
        fence.call(
            request("outer"),
            () -> {
              FenceLease outer = WriterFence.current(name).orElseThrow();
              CountDownLatch lost = lossOf(outer);
              freedByAnother();
              assertThat(lost.await(10, TimeUnit.SECONDS)).as("renewal found the loss").isTrue();

              long inner =
                  fence.call(
                      request("inner"),
                      () -> {
                        FenceLease own = WriterFence.current(name).orElseThrow();
                        own.checkValid(); // its own lease, not the lost one joined
                        assertThat(own).isNotSameAs(outer);
                        return own.fencingToken();
                      });

              assertThat(WriterFence.current(name)).containsSame(outer);
              assertThat(catchThrowable(outer::checkValid)).isInstanceOf(FenceLostException.class);
              return new long[] {outer.fencingToken(), inner};
            });

    assertThat(tokens[1]).as("a lease of its own").isGreaterThan(tokens[0]);
    assertThat(WriterFence.current(name)).isEmpty();
    assertThat(sql.state(name)).as("the nested call released its own lease").isEqualTo("free");
  }

  @Test
  void aLostLeaseOfTryAcquireStaysCurrentUntilItIsReleased() throws Exception {
    WriterFence fence = renewingFence();
    FenceLease lease = fence.tryAcquire(request("api")).orElseThrow();
    CountDownLatch lost = lossOf(lease);
    takeOver();
    assertThat(lost.await(10, TimeUnit.SECONDS)).as("renewal found the loss").isTrue();

    assertThat(WriterFence.current(name)).containsSame(lease);
    assertThat(catchThrowable(() -> WriterFence.current(name).orElseThrow().checkValid()))
        .isInstanceOf(FenceLostException.class)
        .hasMessageContaining("expired or taken over");

    assertThat(fence.release(lease)).as("the row is the other holder's").isFalse();
    assertThat(WriterFence.current(name)).isEmpty();
    assertThat(HeldFenceStack.current()).isEmpty();
  }

  @Test
  void aCarriedTaskRunningWhenTheLeaseIsLostSeesItLost() throws Exception {
    WriterFence fence = renewingFence();
    ExecutorService pool = WriterFence.wrap(Executors.newSingleThreadExecutor());
    try {
      Object[] inTask =
          fence.call(
              request("parent"),
              () -> {
                FenceLease lease = WriterFence.current(name).orElseThrow();
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch lost = lossOf(lease);
                Future<Object[]> task =
                    pool.submit(
                        () -> {
                          started.countDown();
                          assertThat(lost.await(10, TimeUnit.SECONDS)).isTrue();
                          return new Object[] {
                            WriterFence.current(name).orElse(null),
                            catchThrowable(
                                () -> WriterFence.current(name).orElseThrow().checkValid()),
                            HeldFenceStack.holds(name)
                          };
                        });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                takeOver();
                Object[] seen = task.get(20, TimeUnit.SECONDS);
                assertThat(seen[0]).as("the parent's lease, lost").isSameAs(lease);
                return seen;
              });

      assertThat((Throwable) inTask[1])
          .isInstanceOf(FenceLostException.class)
          .hasMessageContaining("expired or taken over");
      assertThat(inTask[2])
          .as("not held there: the audit counts nothing under it")
          .isEqualTo(false);
      assertThat(pool.submit(() -> WriterFence.current(name)).get(10, TimeUnit.SECONDS))
          .as("the pool's thread after the task")
          .isEmpty();
    } finally {
      pool.shutdownNow();
    }
  }
}
