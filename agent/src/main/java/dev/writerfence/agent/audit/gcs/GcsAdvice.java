package dev.writerfence.agent.audit.gcs;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the write operations of the {@code Storage} implementations. The arguments go along
 * as the target: some operations name the bucket and object as text ({@code delete(String,
 * String)}), others take a {@code BlobInfo}, a {@code BlobId} or a request.
 */
final class GcsAdvice {
  private GcsAdvice() {}

  @Advice.OnMethodEnter
  static void enter(@Advice.Origin("#m") String operation, @Advice.AllArguments Object[] args) {
    AuditGate.enter(GcsAudit.ID, operation, args);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
