package dev.writerfence.agent.audit.azure;

import dev.writerfence.bootstrap.AuditGate;
import dev.writerfence.bootstrap.LibraryCaller;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the write operations of Azure's blob clients. A client is bound to its container and
 * blob, so the client itself goes along as the target. A call from the library itself is part of a
 * logical write judged where the application called: an async {@code upload} returns a {@code Mono}
 * that calls {@code uploadWithResponse} only when subscribed, after {@code upload} returned.
 */
final class AzureBlobAdvice {
  private AzureBlobAdvice() {}

  @Advice.OnMethodEnter
  static boolean enter(@Advice.Origin("#m") String operation, @Advice.This Object client) {
    if (LibraryCaller.calledFrom("com.azure.", "reactor.")) {
      return false;
    }
    AuditGate.enter(AzureBlobAudit.ID, operation, client);
    return true;
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit(@Advice.Enter boolean entered) {
    if (entered) {
      AuditGate.exit();
    }
  }
}
