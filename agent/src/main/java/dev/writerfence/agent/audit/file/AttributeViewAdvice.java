package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the setters of the default file system's attribute views ({@code setTimes}, {@code
 * setPermissions}, {@code setOwner}...), which {@code Files.setLastModifiedTime} and {@code
 * Files.setPosixFilePermissions} reach without passing the provider; the view's {@code file} field
 * names the path.
 */
final class AttributeViewAdvice {
  private AttributeViewAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(
      @Advice.Origin("#m") String operation, @Advice.FieldValue("file") Object file) {
    return FileWriteGate.enterPath(operation, file);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
