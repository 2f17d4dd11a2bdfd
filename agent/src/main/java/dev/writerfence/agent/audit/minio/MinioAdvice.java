package dev.writerfence.agent.audit.minio;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the write operations of MinIO's clients; the {@code ...Args} object is the target.
 */
final class MinioAdvice {
  private MinioAdvice() {}

  @Advice.OnMethodEnter
  static void enter(@Advice.Origin("#m") String operation, @Advice.Argument(0) Object args) {
    AuditGate.enter(MinioAudit.ID, operation, args);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
