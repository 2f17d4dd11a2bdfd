package dev.writerfence.agent.propagation;

import dev.writerfence.bootstrap.CarriedTasks;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code Thread.start} (and the virtual thread's): the starter's valid holds go with
 * the thread, unless a pool is starting it as a worker. A failure to attach is suppressed: the
 * thread starts, carrying nothing.
 */
final class ThreadStartAdvice {
  private ThreadStartAdvice() {}

  @Advice.OnMethodEnter(suppress = Throwable.class)
  static void enter(@Advice.This Thread thread) {
    CarriedTasks.starting(thread);
  }
}
