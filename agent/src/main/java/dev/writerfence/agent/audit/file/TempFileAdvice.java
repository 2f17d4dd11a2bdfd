package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code File.createTempFile(String, String, File)}: a file is created in the given
 * directory ({@code null}: the temporary directory, seen only when that lies under a prefix).
 */
final class TempFileAdvice {
  private TempFileAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Argument(2) Object directory) {
    return FileWriteGate.enterPath(
        "createTempFile", directory != null ? directory : System.getProperty("java.io.tmpdir"));
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
