package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.CarriedTasks;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;

/**
 * What the agent's advice asks of {@link CarriedTasks}, called here directly on a real hold: a task
 * object created under a hold carries it, one created outside does not, a thread a pool starts as
 * its worker never carries, and a task it cannot follow by its object is wrapped.
 */
class CarriedTasksTest extends FenceTestSupport {

  @Test
  void aTaskAttachedInsideAHoldRestoresItWhereItRuns() throws Exception {
    WriterFence fence = fence();
    FutureTask<Void> outside = new FutureTask<>(() -> null);
    CarriedTasks.attach(outside);
    FutureTask<Void> inside = new FutureTask<>(() -> null);
    long parent =
        fence.call(
            request("parent"),
            () -> {
              CarriedTasks.attach(inside);
              return WriterFence.current(name).orElseThrow().fencingToken();
            });
    assertThat(CarriedTasks.carried(outside)).isSameAs(CarriedHolds.none());
    assertThat(CarriedTasks.carried(inside).entries())
        .singleElement()
        .satisfies(e -> assertThat(e.fencingToken()).isEqualTo(parent));
    // Released by now: restoring it puts nothing on the thread.
    CarriedHolds.Scope scope = CarriedTasks.restore(inside);
    assertThat(HeldFenceStack.holds(name)).isFalse();
    scope.close();
  }

  @Test
  void whileTheParentHoldsTheRestoredTaskHoldsToo() throws Exception {
    WriterFence fence = fence();
    FutureTask<Void> task = new FutureTask<>(() -> null);
    boolean[] seen =
        fence.call(
            request("parent"),
            () -> {
              CarriedTasks.attach(task);
              boolean[] result = new boolean[2];
              Thread other =
                  new Thread(
                      () -> {
                        CarriedHolds.Scope scope = CarriedTasks.restore(task);
                        result[0] = HeldFenceStack.holds(name);
                        scope.close();
                        result[1] = HeldFenceStack.holds(name);
                      });
              other.start();
              other.join();
              return result;
            });
    assertThat(seen[0]).as("inside the restored scope").isTrue();
    assertThat(seen[1]).as("after it is closed").isFalse();
  }

  @Test
  void aWorkerStartedByAPoolNeverCarries() throws Exception {
    WriterFence fence = fence();
    Thread worker = new Thread(() -> {});
    Thread plain = new Thread(() -> {});
    ForkJoinPool forkJoin = new ForkJoinPool(1);
    ForkJoinWorkerThread forkJoinWorker =
        ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(forkJoin); // never started
    forkJoin.shutdown();
    fence.run(
        request("parent"),
        () -> {
          CarriedTasks.startingWorker(true);
          try {
            CarriedTasks.starting(worker);
          } finally {
            CarriedTasks.startingWorker(false);
          }
          CarriedTasks.starting(forkJoinWorker);
          CarriedTasks.starting(plain);
        });
    assertThat(CarriedTasks.carried(worker).isEmpty()).as("a pool's worker").isTrue();
    assertThat(CarriedTasks.carried(forkJoinWorker).isEmpty()).as("a fork/join worker").isTrue();
    assertThat(CarriedTasks.carried(plain).isEmpty()).as("a plain thread").isFalse();
  }

  @Test
  void aLambdaHandedOffIsWrappedAndAFutureTaskPassesAsItIs() throws Exception {
    WriterFence fence = fence();
    Runnable lambda = () -> {};
    FutureTask<Void> future = new FutureTask<>(() -> null);
    assertThat(CarriedTasks.handOff(lambda)).as("outside a hold").isSameAs(lambda);
    Runnable[] handedOff =
        fence.call(
            request("parent"),
            () -> new Runnable[] {CarriedTasks.handOff(lambda), CarriedTasks.handOff(future)});
    assertThat(handedOff[0]).isNotSameAs(lambda);
    assertThat(handedOff[1]).isSameAs(future);
    assertThat(CarriedTasks.carried(future).isEmpty()).isFalse();
  }
}
