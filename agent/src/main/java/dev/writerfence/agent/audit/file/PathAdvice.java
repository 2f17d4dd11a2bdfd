package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into operations that change the one path they take first (create, delete, set an
 * attribute...): of the file-system provider and of {@code java.io}'s file system.
 */
final class PathAdvice {
  private PathAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Origin("#m") String operation, @Advice.Argument(0) Object path) {
    return FileWriteGate.enterPath(operation, path);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
