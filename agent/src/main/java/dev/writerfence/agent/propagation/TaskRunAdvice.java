package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the methods that run a task object ({@code FutureTask.run} and {@code runAndReset},
 * {@code ForkJoinTask.doExec}, {@code CompletableFuture}'s async tasks' {@code run}) and a thread
 * ({@code Thread.run()}, a virtual thread's {@code run(Runnable)}): the holds the task or thread
 * carries are on the running thread for exactly that run.
 *
 * <p>Advice in the JDK's task classes must never throw into the host: a failure to restore is
 * suppressed (the scope is then {@code null}), and the task runs without the holds. Restoring puts
 * all of them on the thread or none ({@code CarriedHolds.restore}), so the task is then outside
 * every carried hold, and under {@code audit.mode=enforce} its writes are refused: it fails closed.
 */
final class TaskRunAdvice {
  private TaskRunAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  static CarriedHolds.Scope enter(@Advice.This Object task) {
    return CarriedTasks.restore(task);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  static void exit(@Advice.Enter CarriedHolds.Scope scope) {
    if (scope != null) {
      scope.close();
    }
  }
}
