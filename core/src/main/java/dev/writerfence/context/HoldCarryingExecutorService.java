package dev.writerfence.context;

import dev.writerfence.bootstrap.CarriedHolds;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An {@link ExecutorService} whose tasks run inside the holds their submitter had when it submitted
 * them (captured at each submission, as {@link HoldCarryingExecutor} does), the submitter's valid
 * holds only and only while they stay valid. Shutting it down shuts down the executor it wraps.
 * Made by {@code WriterFence.wrap(ExecutorService)}.
 */
public class HoldCarryingExecutorService implements ExecutorService {
  private final ExecutorService executor;

  /**
   * @param executor the executor that runs the tasks; never {@code null}
   * @throws NullPointerException when {@code executor} is {@code null}
   */
  public HoldCarryingExecutorService(ExecutorService executor) {
    this.executor = Objects.requireNonNull(executor, "executor is required");
  }

  /**
   * @param tasks tasks of one submitter
   * @param <T> what they return
   * @return each task wrapped in the submitter's holds, captured once for all of them
   */
  static <T> List<Callable<T>> carried(Collection<? extends Callable<T>> tasks) {
    CarriedHolds holds = CarriedHolds.capture();
    List<Callable<T>> wrapped = new ArrayList<>(tasks.size());
    for (Callable<T> task : tasks) {
      wrapped.add(holds.wrap(task));
    }
    return wrapped;
  }

  @Override
  public void execute(Runnable task) {
    executor.execute(CarriedHolds.capture().wrap(task));
  }

  @Override
  public <T> Future<T> submit(Callable<T> task) {
    return executor.submit(CarriedHolds.capture().wrap(task));
  }

  @Override
  public <T> Future<T> submit(Runnable task, T result) {
    return executor.submit(CarriedHolds.capture().wrap(task), result);
  }

  @Override
  public Future<?> submit(Runnable task) {
    return executor.submit(CarriedHolds.capture().wrap(task));
  }

  @Override
  public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks)
      throws InterruptedException {
    return executor.invokeAll(carried(tasks));
  }

  @Override
  public <T> List<Future<T>> invokeAll(
      Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException {
    return executor.invokeAll(carried(tasks), timeout, unit);
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks)
      throws InterruptedException, ExecutionException {
    return executor.invokeAny(carried(tasks));
  }

  @Override
  public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
      throws InterruptedException, ExecutionException, TimeoutException {
    return executor.invokeAny(carried(tasks), timeout, unit);
  }

  @Override
  public void shutdown() {
    executor.shutdown();
  }

  @Override
  public List<Runnable> shutdownNow() {
    return executor.shutdownNow();
  }

  @Override
  public boolean isShutdown() {
    return executor.isShutdown();
  }

  @Override
  public boolean isTerminated() {
    return executor.isTerminated();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return executor.awaitTermination(timeout, unit);
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + executor + "]";
  }
}
