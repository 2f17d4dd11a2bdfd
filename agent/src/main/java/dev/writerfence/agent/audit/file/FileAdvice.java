package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code java.io.File}'s changing methods ({@code delete}, {@code mkdir}, {@code
 * createNewFile}, {@code setLastModified}, {@code setWritable}...): on Java 17 several of the
 * {@code java.io.FileSystem} methods they call are native, which advice cannot enter.
 */
final class FileAdvice {
  private FileAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Origin("#m") String operation, @Advice.This Object file) {
    return FileWriteGate.enterPath(operation, file);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
