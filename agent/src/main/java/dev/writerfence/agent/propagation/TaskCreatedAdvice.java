package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined at the end of the constructors of {@code FutureTask} and {@code ForkJoinTask}: a task
 * created where the thread holds a valid lease carries those holds (what {@code submit}, {@code
 * schedule}, {@code invokeAll}, {@code supplyAsync} and a parallel stream's splitting create).
 */
final class TaskCreatedAdvice {
  private TaskCreatedAdvice() {}

  @Advice.OnMethodExit
  static void exit(@Advice.This Object task) {
    CarriedTasks.attach(task);
  }
}
