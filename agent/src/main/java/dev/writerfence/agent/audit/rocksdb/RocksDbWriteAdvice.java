package dev.writerfence.agent.audit.rocksdb;

import dev.writerfence.bootstrap.AuditGate;
import net.bytebuddy.asm.Advice;

/**
 * Inlined into the writes of {@code RocksDB} and {@code SstFileWriter}: the store itself and the
 * arguments go along as the target.
 */
final class RocksDbWriteAdvice {
  private RocksDbWriteAdvice() {}

  @Advice.OnMethodEnter
  static void enter(
      @Advice.Origin("#m") String operation,
      @Advice.This Object store,
      @Advice.AllArguments Object[] args) {
    AuditGate.enter(RocksDbAudit.ID, operation, new Object[] {store, args});
  }

  @Advice.OnMethodExit(onThrowable = Throwable.class)
  static void exit() {
    AuditGate.exit();
  }
}
