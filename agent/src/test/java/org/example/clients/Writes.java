package org.example.clients;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.testing.WriterProcess;

/**
 * What every client app of the audit tests shares: a fence held in the embedded PostgreSQL, and one
 * output line per attempted operation: {@code wrote LABEL}, {@code refused LABEL} (an {@link
 * UnfencedWriteException}) or {@code failed LABEL} (the exception goes to standard error; the
 * request failed after the audit let it through, as against a closed port).
 */
final class Writes {
  /** One storage operation. */
  interface Operation {
    void run() throws Exception;
  }

  private Writes() {}

  /**
   * Runs {@code body} holding the fence {@code fenceName}.
   *
   * @param jdbcUrl the embedded database
   * @param fenceName the fence
   * @param body the fenced writes
   */
  static void fenced(String jdbcUrl, String fenceName, Runnable body) {
    try (WriterFence fence = WriterFence.builder(WriterProcess.unpooled(jdbcUrl)).build()) {
      fence.run(FenceRequest.of(fenceName), body::run);
    }
  }

  /** Runs one operation and prints its outcome. */
  static void attempt(String label, Operation operation) {
    try {
      operation.run();
      System.out.println("wrote " + label);
    } catch (UnfencedWriteException e) {
      System.out.println("refused " + label);
    } catch (Exception e) {
      Throwable cause = e;
      while (cause.getCause() != null && !(cause instanceof UnfencedWriteException)) {
        cause = cause.getCause();
      }
      if (cause instanceof UnfencedWriteException) {
        System.out.println("refused " + label);
      } else {
        System.out.println("failed " + label);
        System.err.println("failed " + label + ": " + e);
      }
    }
  }

  /** Ends the app's output. */
  static void done() {
    System.out.println("done");
    System.out.flush();
  }
}
