package dev.writerfence.agent.audit.s3v1;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the write operations of {@code AmazonS3Client} and {@code TransferManager}. The
 * arguments go along as the target: SDK v1 has overloads that take the bucket and key as text
 * ({@code deleteObject(String, String)}) beside those that take a request object.
 */
final class S3V1Advice {
  private S3V1Advice() {}

  @Advice.OnMethodEnter
  static void enter(@Advice.Origin("#m") String operation, @Advice.AllArguments Object[] args) {
    AuditGate.enter(AwsS3V1Audit.ID, operation, args);
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
