package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hold captured on the holding thread counts on the thread that restores it exactly while the
 * parent's lease is valid: the lease is current there, a fenced call of the same name joins it, and
 * once the parent's call has released it, work still running is outside the hold.
 */
class CarriedHoldsTest extends FenceTestSupport {
  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void nothingIsCapturedOutsideAHold() {
    CarriedHolds carried = CarriedHolds.capture();
    assertThat(carried).isSameAs(CarriedHolds.none());
    Runnable task = () -> {};
    assertThat(carried.wrap(task)).as("no wrapper when nothing travels").isSameAs(task);
  }

  @Test
  void taskInsideTheParentsHoldSeesItsLeaseAndJoinsIt() throws Exception {
    WriterFence fence = fence();
    long[] seen =
        fence.call(
            request("parent"),
            () -> {
              long parentToken = fence.currentLease(name).orElseThrow().fencingToken();
              CarriedHolds carried = CarriedHolds.capture();
              Future<Long> current =
                  pool.submit(
                      carried.wrap(() -> WriterFence.current(name).orElseThrow().fencingToken()));
              Future<Long> joined =
                  pool.submit(
                      carried.wrap(
                          () ->
                              fence.call(
                                  request("child"),
                                  () -> fence.currentLease(name).orElseThrow().fencingToken())));
              return new long[] {
                parentToken, current.get(30, TimeUnit.SECONDS), joined.get(30, TimeUnit.SECONDS)
              };
            });
    assertThat(seen[1]).as("the task sees the parent's lease").isEqualTo(seen[0]);
    assertThat(seen[2]).as("a fenced call in the task joins the hold").isEqualTo(seen[0]);
    assertThat(sql.fencingToken(name)).as("no second acquire").isEqualTo(seen[0]);
  }

  @Test
  void taskThatOutlivesTheParentsHoldIsOutsideIt() throws Exception {
    WriterFence fence = fence();
    CountDownLatch looked = new CountDownLatch(1);
    CountDownLatch parentEnded = new CountDownLatch(1);
    Future<boolean[]> task =
        fence.call(
            request("parent"),
            () -> {
              CarriedHolds carried = CarriedHolds.capture();
              Future<boolean[]> submitted =
                  pool.submit(
                      carried.wrap(
                          () -> {
                            boolean inside = WriterFence.current(name).isPresent();
                            looked.countDown();
                            parentEnded.await(30, TimeUnit.SECONDS);
                            return new boolean[] {
                              inside,
                              WriterFence.current(name).isPresent(),
                              HeldFenceStack.holds(name)
                            };
                          }));
              // the parent's call ends only once the task has looked inside the hold
              looked.await(30, TimeUnit.SECONDS);
              return submitted;
            });
    parentEnded.countDown();
    boolean[] seen = task.get(30, TimeUnit.SECONDS);
    assertThat(seen[0]).as("inside while the parent held").isTrue();
    assertThat(seen[1]).as("current after the parent released").isFalse();
    assertThat(seen[2]).as("the audit's check after the parent released").isFalse();
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void restoredHoldsLeaveTheWorkersStackAsTheyFoundIt() throws Exception {
    WriterFence fence = fence();
    CarriedHolds carried = fence.call(request("parent"), CarriedHolds::capture);
    Future<Optional<FenceLease>> after =
        pool.submit(
            () -> {
              // restored after the release: nothing valid to put on the thread
              CarriedHolds.Scope scope = carried.restore();
              Optional<FenceLease> inside = WriterFence.current(name);
              scope.close();
              return inside;
            });
    assertThat(after.get(30, TimeUnit.SECONDS)).isEmpty();
    assertThat(carried.isValid()).isFalse();
    assertThat(carried.entries()).hasSize(1);
  }
}
