package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code FileOutputStream.open(String, boolean)}, the private method every constructor
 * that takes a name or a {@code File} ends in: opening is the write. (A constructor cannot be
 * advised on its exceptional exit, which the gate's pairing needs.)
 */
final class FileOutputStreamAdvice {
  private FileOutputStreamAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Argument(0) String name) {
    return FileWriteGate.enterPath("FileOutputStream", name);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
