package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the methods that run a task object ({@code FutureTask.run} and {@code runAndReset},
 * {@code ForkJoinTask.doExec}, {@code CompletableFuture}'s async tasks' {@code run}) and a thread
 * ({@code Thread.run()}, a virtual thread's {@code run(Runnable)}): the holds the task or thread
 * carries are on the running thread for exactly that run.
 */
final class TaskRunAdvice {
  private TaskRunAdvice() {}

  @Advice.OnMethodEnter
  static CarriedHolds.Scope enter(@Advice.This Object task) {
    return CarriedTasks.restore(task);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter CarriedHolds.Scope scope) {
    scope.close();
  }
}
