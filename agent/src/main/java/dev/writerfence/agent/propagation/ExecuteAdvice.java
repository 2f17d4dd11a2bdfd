package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code ThreadPoolExecutor.execute(Runnable)}: a task the agent cannot follow by its
 * object (a lambda, an application class) is replaced by one that restores the submitter's valid
 * holds; a {@code FutureTask} or {@code ForkJoinTask} is attached and passes as it is. A failure to
 * carry is suppressed: the task is handed off as it was, and runs without the holds.
 */
final class ExecuteAdvice {
  private ExecuteAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  static void enter(@Advice.Argument(value = 0, readOnly = false) Runnable task) {
    task = CarriedTasks.handOff(task);
  }
}
