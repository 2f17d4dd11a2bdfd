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
   * @return the SQLState of the first {@link SQLException} in the cause chain, if there is one (the
   *     cause itself, or the cause of a {@code TransientLeaseStoreException} when transient errors
   *     outlasted the retries)
   */
  public Optional<String> sqlState() {
    for (Throwable t = getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof SQLException sql) {
        return Optional.ofNullable(sql.getSQLState());
      }
    }
    return Optional.empty();
  }
}
