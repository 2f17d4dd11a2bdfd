package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/** Inlined into {@code File.renameTo(File)}: both this file (removed) and the target change. */
final class FileRenameAdvice {
  private FileRenameAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(
      @Advice.Origin("#m") String operation,
      @Advice.This Object file,
      @Advice.Argument(0) Object target) {
    return FileWriteGate.enterPaths(operation, file, target);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
