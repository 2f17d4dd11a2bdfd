package dev.writerfence.spi;

import java.sql.SQLException;

/**
 * An attempt failed in a way that may succeed at once when repeated: SQLState 40001 (serialization
 * failure), 40P01 (deadlock) or 55P03 (lock timeout). Retried like busy, within the same bound;
 * never reported as busy.
 */
public final class TransientLeaseStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param cause the database's error; never {@code null}
   */
  public TransientLeaseStoreException(SQLException cause) {
    super("writer-fence: transient database error, SQLState " + cause.getSQLState(), cause);
  }

  /**
   * @return the SQLState of the cause
   */
  public String sqlState() {
    return ((SQLException) getCause()).getSQLState();
  }
}
