package dev.writerfence.context;

import dev.writerfence.bootstrap.CarriedHolds;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * An {@link Executor} whose tasks run inside the holds their submitter had when it submitted them:
 * the holds are captured at each {@link #execute}, so one wrapped executor serves any number of
 * holders at once, each task with its own submitter's holds. A carried hold counts exactly while
 * the submitter's lease is valid; a task still running after that runs outside it. Made by {@code
 * WriterFence.wrap(Executor)}.
 */
public final class HoldCarryingExecutor implements Executor {
  private final Executor executor;

  /**
   * @param executor the executor that runs the tasks; never {@code null}
   * @throws NullPointerException when {@code executor} is {@code null}
   */
  public HoldCarryingExecutor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor is required");
  }

  /**
   * @param task the task; never {@code null}
   * @throws NullPointerException when {@code task} is {@code null}
   * @throws java.util.concurrent.RejectedExecutionException when the executor refuses it
   */
  @Override
  public void execute(Runnable task) {
    executor.execute(CarriedHolds.capture().wrap(task));
  }

  @Override
  public String toString() {
    return "HoldCarryingExecutor[" + executor + "]";
  }
}
