package dev.writerfence.store.advisory;

import dev.writerfence.WriterFenceInterruptedException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.jdbc.Statements;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The advisory-lock store's bounded pool: at most {@code poolSize} connections of its DataSource in
 * use at once (one per hold, one per attempt in flight), each borrowed in autocommit and given back
 * with its permit; a connection that may still hold a lock it should not is cleared of its advisory
 * locks first, or closed for good. Its statements run with the store's query timeout.
 */
final class AdvisoryPool {
  /** The store's category: what operators filter on stays the one class they know. */
  private static final Logger LOG = LoggerFactory.getLogger(AdvisoryLockStore.class);

  private static final String UNLOCK_ALL_SQL = "SELECT pg_catalog.pg_advisory_unlock_all()";

  private final DataSource dataSource;
  private final String schema;
  private final int poolSize;
  private final Semaphore permits;
  private final long borrowTimeoutNanos;
  private final Statements statements;
  private volatile boolean closed;

  /**
   * @param dataSource the store's own connections
   * @param schema the contract's schema, named when a failure is sorted
   * @param poolSize at most this many connections in use at once
   * @param borrowTimeout how long a borrow waits for a free permit
   * @param queryTimeoutSeconds every statement's query timeout, in whole seconds
   */
  AdvisoryPool(
      DataSource dataSource,
      String schema,
      int poolSize,
      Duration borrowTimeout,
      int queryTimeoutSeconds) {
    this.dataSource = dataSource;
    this.schema = schema;
    this.poolSize = poolSize;
    this.permits = new Semaphore(poolSize, true);
    this.borrowTimeoutNanos = borrowTimeout.toNanos();
    this.statements = new Statements(dataSource, schema, queryTimeoutSeconds);
  }

  /**
   * @return the statement frame, with the store's query timeout
   */
  Statements statements() {
    return statements;
  }

  /**
   * @return the contract's schema
   */
  String schema() {
    return schema;
  }

  /** Refuses every later borrow; connections in use stay with their holders. */
  void close() {
    closed = true;
  }

  /**
   * Takes a permit and a connection in autocommit.
   *
   * @param fenceName the fence the connection is for, named in a failure
   * @return the connection; give it back with {@link #giveBack} or {@link #discard(Connection)} and
   *     {@link #releasePermits}
   * @throws WriterFenceUnavailableException when the pool is closed, or exhausted (naming its
   *     size), or the DataSource fails
   * @throws WriterFenceInterruptedException when interrupted while waiting for a permit
   */
  Connection borrow(String fenceName) {
    if (closed) {
      throw new WriterFenceUnavailableException(
          fenceName,
          "writer-fence: fence '" + fenceName + "': the advisory-lock store is closed",
          null);
    }
    boolean permitted;
    try {
      permitted = permits.tryAcquire(borrowTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WriterFenceInterruptedException(
          fenceName,
          "writer-fence: fence '"
              + fenceName
              + "': interrupted while waiting for a connection of the advisory-lock store's pool;"
              + " no lock is held",
          e);
    }
    if (!permitted) {
      throw new WriterFenceUnavailableException(
          fenceName,
          "writer-fence: fence '"
              + fenceName
              + "': the advisory-lock store's pool of "
              + poolSize
              + " connections is exhausted: none came free within "
              + Duration.ofNanos(borrowTimeoutNanos).toMillis()
              + " ms. Each held advisory lock pins one connection for its whole hold, and each"
              + " attempt in flight uses one; give the store a larger pool (poolSize) or hold"
              + " fewer fences at once in this process",
          null);
    }
    try {
      Connection connection = dataSource.getConnection();
      try {
        if (!connection.getAutoCommit()) {
          connection.setAutoCommit(true);
        }
      } catch (SQLException e) {
        discard(connection);
        throw e;
      }
      return connection;
    } catch (SQLException e) {
      permits.release();
      throw SqlErrors.classify(fenceName, schema, e);
    } catch (RuntimeException | Error e) {
      permits.release();
      throw e;
    }
  }

  /**
   * Returns a connection to the DataSource and its permit to the pool. When the connection may hold
   * a lock (a statement that tried one failed), the session's advisory locks are dropped first; if
   * that fails too, the connection is closed for good, which ends the session.
   */
  void giveBack(Connection connection, boolean mayHoldLock) {
    try {
      if (mayHoldLock) {
        try {
          statements.query(connection, UNLOCK_ALL_SQL, rs -> null);
        } catch (SQLException e) {
          LOG.debug("writer-fence: could not drop a failed attempt's locks; closing", e);
          discard(connection);
          return;
        }
      }
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("writer-fence: could not return a connection to its pool", e);
      }
    } finally {
      permits.release();
    }
  }

  /**
   * @param count permits of connections that were {@linkplain #discard(Connection) discarded}
   */
  void releasePermits(int count) {
    permits.release(count);
  }

  /** Ends the session for good: aborts the physical connection, then closes the handle. */
  static void discard(Connection connection) {
    try {
      connection.abort(Runnable::run);
    } catch (SQLException | RuntimeException e) {
      LOG.debug("writer-fence: could not abort a connection", e);
    }
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("writer-fence: could not close an aborted connection", e);
    }
  }
}
