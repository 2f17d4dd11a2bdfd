package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code ThreadPoolExecutor.addWorker}, which starts a worker thread on whichever
 * thread submits: the worker must not carry the submitter's holds into every task it will run.
 * Failures are suppressed: the pool's start of its worker goes on.
 */
final class WorkerStartAdvice {
  private WorkerStartAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  static void enter() {
    CarriedTasks.startingWorker(true);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
  static void exit() {
    CarriedTasks.startingWorker(false);
  }
}
