package dev.writerfence.agent.audit.file;

import dev.writerfence.bootstrap.FileWriteGate;
import java.util.Set;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the file-system provider's channel opens ({@code newByteChannel}, {@code
 * newFileChannel}, {@code newAsynchronousFileChannel}): an open with a writing option is the write.
 */
final class OpenAdvice {
  private OpenAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(
      @Advice.Origin("#m") String operation,
      @Advice.Argument(0) Object path,
      @Advice.Argument(1) Set<?> options) {
    return FileWriteGate.enterOpen(operation, path, options);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    FileWriteGate.exit(entered);
  }
}
