package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import org.springframework.core.task.TaskDecorator;

/**
 * A {@link TaskDecorator} that runs each task inside the holds of the code that submitted it
 * ({@link WriterFence#wrap(Runnable)}), while those leases are valid. The starter's decorator when
 * the application does not have Micrometer's context-propagation (with it, Spring's {@code
 * ContextPropagatingTaskDecorator} carries the holds, and every other registered thread-local,
 * instead). An application on Spring Boot 3.5 with a decorator of its own can compose this one into
 * it: {@code task -> new HoldCarryingTaskDecorator().decorate(own.decorate(task))}.
 */
public final class HoldCarryingTaskDecorator implements TaskDecorator {
  /** A decorator with no state: one instance serves every executor. */
  public HoldCarryingTaskDecorator() {}

  /**
   * @param task the task; never {@code null}
   * @return {@code task} itself when the submitting thread holds nothing, else the task wrapped in
   *     its holds
   * @throws NullPointerException when {@code task} is {@code null}
   */
  @Override
  public Runnable decorate(Runnable task) {
    return WriterFence.wrap(task);
  }
}
