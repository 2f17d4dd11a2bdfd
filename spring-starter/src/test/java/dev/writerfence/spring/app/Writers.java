package dev.writerfence.spring.app;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import io.github.resilience4j.retry.annotation.Retry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Fenced service methods; each returns the fencing token it ran under, or -1 when unfenced. */
public class Writers {
  private final JdbcTemplate jdbc;

  public Writers(JdbcTemplate jdbc) {
    this.jdbc = jdbc;
  }

  @WriterFenced("{0}")
  public long write(String fence) {
    return token(fence);
  }

  /** Runs {@code body} inside the hold, with busy retry shortened to 2 quick attempts. */
  @WriterFenced(
      value = "{0}",
      holder = "metrics",
      retryMaxAttempts = 2,
      retryInitialIntervalMillis = 10)
  public long runFenced(String fence, Runnable body) {
    body.run();
    return token(fence);
  }

  /**
   * C20: Resilience4j's @Retry outside, the fence, then the transaction. Writes one row in the
   * transaction, stamped with the fencing token.
   */
  @Retry(name = "c20")
  @Transactional
  @WriterFenced(value = "{0}", holder = "c20-writer")
  public long writeInTransaction(String fence, String payload) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalStateException("no transaction");
    }
    long token = token(fence);
    jdbc.update(
        "INSERT INTO c20_record(fence_name, payload, fencing_token) VALUES (?, ?, ?)",
        fence,
        payload,
        token);
    return token;
  }

  static long token(String fence) {
    return WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L);
  }
}
