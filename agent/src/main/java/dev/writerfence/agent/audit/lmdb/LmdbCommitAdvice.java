package dev.writerfence.agent.audit.lmdb;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into {@code Txn.commit}: judged for a top-level write transaction only, whose commit is
 * what reaches the environment.
 */
final class LmdbCommitAdvice {
  private LmdbCommitAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(
      @Advice.Origin("#m") String operation,
      @Advice.FieldValue("readOnly") boolean readOnly,
      @Advice.FieldValue("parent") Object parent,
      @Advice.FieldValue("env") Object env) {
    if (readOnly || parent != null) {
      return false;
    }
    AuditGate.enter(LmdbAudit.ID, operation, new Object[] {env});
    return true;
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    if (entered) {
      AuditGate.exit();
    }
  }
}
