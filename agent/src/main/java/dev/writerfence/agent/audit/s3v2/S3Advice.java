package dev.writerfence.agent.audit.s3v2;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the write operations of the SDK's S3 clients and of the transfer manager. Calls only
 * the bootstrap gate: the request object goes along as the target, read for bucket and key only
 * when the write is unfenced.
 */
final class S3Advice {
  private S3Advice() {}

  @Advice.OnMethodEnter
  static void enter(@Advice.Origin("#m") String operation, @Advice.Argument(0) Object request) {
    AuditGate.enter(AwsS3V2Audit.ID, operation, request);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
