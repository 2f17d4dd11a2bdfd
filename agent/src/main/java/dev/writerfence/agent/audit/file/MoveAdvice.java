package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the provider's {@code move} and {@code java.io}'s {@code rename}: both the source
 * (removed) and the target (created) change.
 */
final class MoveAdvice {
  private MoveAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(
      @Advice.Origin("#m") String operation,
      @Advice.Argument(0) Object source,
      @Advice.Argument(1) Object target) {
    return FileWriteGate.enterPaths(operation, source, target);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
