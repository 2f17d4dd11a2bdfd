package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/** Inlined into the provider's {@code copy}: only the target is written; the source is read. */
final class CopyAdvice {
  private CopyAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Origin("#m") String operation, @Advice.Argument(1) Object target) {
    return FileWriteGate.enterPath(operation, target);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
