package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Guard (C33, leaks and fail-open): after carried tasks end, and after the parent's hold ends, the
 * pool's worker holds nothing: neither an entry on its held-fence stack nor a lease seen by {@code
 * WriterFence.current}, whichever way the task was handed over (execute, submit, invokeAll,
 * invokeAny, a failing task, a periodic task).
 */
class CarriedTaskWorkerTest extends FenceTestSupport {

  @Test
  void aWorkerHoldsNothingAfterCarriedTasksEndAndAfterTheParentsHoldEnds() throws Exception {
    ExecutorService pool = Executors.newSingleThreadExecutor();
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try (WriterFence fence = fence()) {
      ExecutorService carrying = WriterFence.wrap(pool);
      ScheduledExecutorService carryingTimer = WriterFence.wrap(timer);
      Callable<Boolean> seesLease = () -> WriterFence.current(name).isPresent();
      AtomicLong periodicRunsInside = new AtomicLong();
      fence.run(
          FenceRequest.of(name),
          () -> {
            assertThat(carrying.submit(seesLease).get()).as("submit inside").isTrue();
            assertThat(carrying.invokeAll(List.of(seesLease, seesLease)))
                .allSatisfy(f -> assertThat(f.get()).as("invokeAll inside").isTrue());
            assertThat(carrying.invokeAny(List.of(seesLease))).as("invokeAny inside").isTrue();
            carrying.submit(
                () -> {
                  throw new IllegalStateException("a failing task");
                });
            carryingTimer.scheduleAtFixedRate(
                () -> {
                  if (WriterFence.current(name).isPresent()) {
                    periodicRunsInside.incrementAndGet();
                  }
                },
                0,
                10,
                TimeUnit.MILLISECONDS);
            Thread.sleep(100);
          });
      // The parent's hold has ended: the workers, asked through the unwrapped pools, hold nothing.
      assertThat(pool.submit(() -> HeldFenceStack.held()).get())
          .as("pool worker's stack")
          .isEmpty();
      assertThat(pool.submit(seesLease).get()).as("pool worker sees a lease").isFalse();
      assertThat(carrying.submit(seesLease).get()).as("a task carried from no hold").isFalse();
      assertThat(periodicRunsInside.get()).as("periodic runs inside the hold").isPositive();
      long inside = periodicRunsInside.get();
      Thread.sleep(100);
      assertThat(periodicRunsInside.get())
          .as("periodic runs seeing the lease after the parent's hold ended")
          .isEqualTo(inside);
      assertThat(timer.submit(() -> HeldFenceStack.held()).get())
          .as("timer worker's stack")
          .isEmpty();
    } finally {
      pool.shutdownNow();
      timer.shutdownNow();
    }
  }
}
