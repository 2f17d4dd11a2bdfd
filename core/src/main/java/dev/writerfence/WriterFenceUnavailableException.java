package dev.writerfence;

import java.sql.SQLException;
import java.util.Optional;

/**
 * The database could not confirm the lease: it was unreachable, too slow, read-only, missing the
 * schema, or refused the call. The guarded code did not run (fail closed).
 */
public final class WriterFenceUnavailableException extends WriterFenceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param fenceName the fence concerned; never {@code null}
   * @param message what failed and, where known, how to fix it
   * @param cause the underlying failure, usually a {@link SQLException}; may be {@code null}
   */
  public WriterFenceUnavailableException(String fenceName, String message, Throwable cause) {
    super(fenceName, message, cause);
  }

  /**
   * @return the SQLState of the underlying {@link SQLException}, if the cause carries one
   */
  public Optional<String> sqlState() {
    return getCause() instanceof SQLException sql
        ? Optional.ofNullable(sql.getSQLState())
        : Optional.empty();
  }
}
