package dev.writerfence.agent.audit.rocksdb;

import dev.writerfence.bootstrap.StorePaths;
import net.bytebuddy.asm.Advice;

/** Inlined into {@code SstFileWriter.open(String)}: records the file it writes. */
final class SstFileOpenAdvice {
  private SstFileOpenAdvice() {}

  @Advice.OnMethodExit
  static void exit(@Advice.This Object writer, @Advice.Argument(0) Object path) {
    StorePaths.opened(writer, path);
  }
}
