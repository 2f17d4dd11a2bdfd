package dev.writerfence.agent.audit.lmdb;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the writes of {@code Dbi} and {@code Cursor}: the environment (their {@code env}
 * field) and the arguments go along as the target.
 */
final class LmdbWriteAdvice {
  private LmdbWriteAdvice() {}

  @Advice.OnMethodEnter
  static void enter(
      @Advice.Origin("#m") String operation,
      @Advice.FieldValue("env") Object env,
      @Advice.AllArguments Object[] args) {
    AuditGate.enter(LmdbAudit.ID, operation, new Object[] {env, args});
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
