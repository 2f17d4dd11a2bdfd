package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined at the end of the constructors of {@code FutureTask} and {@code ForkJoinTask}: a task
 * created where the thread holds a valid lease carries those holds (what {@code submit}, {@code
 * schedule}, {@code invokeAll}, {@code supplyAsync} and a parallel stream's splitting create). A
 * failure to attach is suppressed: the task carries nothing and runs without the holds.
 */
final class TaskCreatedAdvice {
  private TaskCreatedAdvice() {}

  @Advice.OnMethodExit(suppress = Throwable.class)
  static void exit(@Advice.This Object task) {
    CarriedTasks.attach(task);
  }
}
