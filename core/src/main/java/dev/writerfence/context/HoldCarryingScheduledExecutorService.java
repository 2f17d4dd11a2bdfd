package dev.writerfence.context;

import dev.writerfence.bootstrap.CarriedHolds;
import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} whose tasks run inside the holds their scheduler had when it
 * scheduled them. A periodic task captures once, when it is scheduled: its runs count inside the
 * hold while the scheduler's lease is valid, and run outside it once that lease was released or
 * lost. Made by {@code WriterFence.wrap(ScheduledExecutorService)}.
 */
public final class HoldCarryingScheduledExecutorService extends HoldCarryingExecutorService
    implements ScheduledExecutorService {
  private final ScheduledExecutorService executor;

  /**
   * @param executor the executor that runs the tasks; never {@code null}
   * @throws NullPointerException when {@code executor} is {@code null}
   */
  public HoldCarryingScheduledExecutorService(ScheduledExecutorService executor) {
    super(executor);
    this.executor = executor;
  }

  @Override
  public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
    return executor.schedule(CarriedHolds.capture().wrap(task), delay, unit);
  }

  @Override
  public <V> ScheduledFuture<V> schedule(Callable<V> task, long delay, TimeUnit unit) {
    return executor.schedule(CarriedHolds.capture().wrap(task), delay, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleAtFixedRate(
      Runnable task, long initialDelay, long period, TimeUnit unit) {
    return executor.scheduleAtFixedRate(
        CarriedHolds.capture().wrap(task), initialDelay, period, unit);
  }

  @Override
  public ScheduledFuture<?> scheduleWithFixedDelay(
      Runnable task, long initialDelay, long delay, TimeUnit unit) {
    return executor.scheduleWithFixedDelay(
        CarriedHolds.capture().wrap(task), initialDelay, delay, unit);
  }
}
