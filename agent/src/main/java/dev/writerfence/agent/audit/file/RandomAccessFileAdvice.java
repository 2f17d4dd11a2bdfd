package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code RandomAccessFile.open(String, int)}, the private method its constructors end
 * in: a {@code rw}, {@code rws} or {@code rwd} open is the write; {@code r} is a read.
 */
final class RandomAccessFileAdvice {
  private RandomAccessFileAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Argument(0) String name, @Advice.Argument(1) int mode) {
    return FileWriteGate.enterRandomAccess("RandomAccessFile", name, mode);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
