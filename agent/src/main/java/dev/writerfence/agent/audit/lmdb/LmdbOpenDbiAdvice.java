package dev.writerfence.agent.audit.lmdb;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code Env.openDbi}: the transaction it commits itself is not judged (opening a
 * database is a start-up step, before a fence is taken; it adds an empty database at most).
 */
final class LmdbOpenDbiAdvice {
  private LmdbOpenDbiAdvice() {}

  @Advice.OnMethodEnter
  static void enter() {
    AuditGate.suspend();
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
