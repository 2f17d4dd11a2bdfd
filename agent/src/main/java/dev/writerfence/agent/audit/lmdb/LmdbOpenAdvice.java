package dev.writerfence.agent.audit.lmdb;

import dev.writerfence.bootstrap.StorePaths;
import net.bytebuddy.asm.Advice;

/** Inlined into {@code Env.Builder.open(File, ...)}: records the environment's path. */
final class LmdbOpenAdvice {
  private LmdbOpenAdvice() {}

  @Advice.OnMethodExit
  static void exit(@Advice.Argument(0) Object path, @Advice.Return Object env) {
    StorePaths.opened(env, path);
  }
}
