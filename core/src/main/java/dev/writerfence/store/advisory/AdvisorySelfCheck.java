package dev.writerfence.store.advisory;

import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.jdbc.Statements;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The advisory-lock store's start-up self-check: proves with two connections of its pool that an
 * advisory lock taken on one excludes the other, and that each keeps its server process from one
 * statement to the next. Behind a pooler in transaction mode neither holds, and the store refuses
 * to start (see {@link AdvisoryLockStore}).
 */
final class AdvisorySelfCheck {
  /** The store's category: what operators filter on stays the one class they know. */
  private static final Logger LOG = LoggerFactory.getLogger(AdvisoryLockStore.class);

  private static final String TRY_LOCK_SQL =
      "SELECT pg_catalog.pg_try_advisory_lock(?), pg_catalog.pg_backend_pid()";
  private static final String SESSION_SQL =
      "SELECT pg_catalog.pg_backend_pid(), " + AdvisoryPin.HELD_BY_ME;

  private static final SecureRandom RANDOM = new SecureRandom();

  /** A try of the key on one connection: whether it was won, and the server process that ran it. */
  private record Try(boolean won, int pid) {}

  private AdvisorySelfCheck() {}

  /**
   * @param pool the store's pool; two of its connections are used and given back
   * @throws IllegalStateException when two connections share a server session, or a connection
   *     changes server process or loses its lock between two statements, or the random key is
   *     locked by another session already
   * @throws WriterFenceUnavailableException when two connections cannot be had or the database
   *     cannot run the check
   */
  static void run(AdvisoryPool pool) {
    String what = "*";
    Connection first = pool.borrow(what);
    Connection second;
    try {
      second = pool.borrow(what);
    } catch (RuntimeException e) {
      pool.giveBack(first, false);
      throw e;
    }
    Statements statements = pool.statements();
    long key = RANDOM.nextLong();
    String refusal = null;
    try {
      Try firstTry = tryLock(statements, first, key);
      if (!firstTry.won()) {
        throw new IllegalStateException(
            "writer-fence: the advisory-lock store's self-check found its random key "
                + key
                + " already locked by another session; try again");
      }
      Try secondTry = tryLock(statements, second, key);
      if (secondTry.won()) {
        refusal =
            "two connections of its pool both won advisory lock "
                + key
                + " (server processes "
                + firstTry.pid()
                + " and "
                + secondTry.pid()
                + "): they share a server session";
      }
      if (refusal == null) {
        refusal = sessionChange(statements, first, key, firstTry.pid(), true);
      }
      if (refusal == null) {
        refusal = sessionChange(statements, second, key, secondTry.pid(), false);
      }
    } catch (SQLException e) {
      RuntimeException classified = SqlErrors.classify(what, pool.schema(), e);
      throw new WriterFenceUnavailableException(
          what,
          "writer-fence: the advisory-lock store's start-up self-check could not run: "
              + classified.getMessage(),
          e);
    } finally {
      if (refusal == null) {
        pool.giveBack(second, true);
        pool.giveBack(first, true);
      } else {
        // Behind a session-multiplexing pooler the lock sits on a shared server session, which
        // outlives our connections: unlock it there once per win, best effort.
        bestEffortUnlock(statements, second, key);
        bestEffortUnlock(statements, first, key);
        AdvisoryPool.discard(second);
        AdvisoryPool.discard(first);
        pool.releasePermits(2);
      }
    }
    if (refusal != null) {
      throw new IllegalStateException(
          "writer-fence: the advisory-lock backend refuses to start: "
              + refusal
              + ". The connections go through a pooler in transaction pooling mode (PgBouncer with"
              + " pool_mode = transaction multiplexes server sessions among clients), where a"
              + " session advisory lock excludes nobody. Connect the advisory-lock store to"
              + " PostgreSQL directly or through a pooler in session mode, or use the lease"
              + " backend (backend=lease), which stays exact behind any pool");
    }
  }

  private static Try tryLock(Statements statements, Connection connection, long key)
      throws SQLException {
    return statements.query(
        connection,
        TRY_LOCK_SQL,
        rs -> {
          rs.next();
          return new Try(rs.getBoolean(1), rs.getInt(2));
        },
        key);
  }

  /** Checks that a connection is still on the server process that answered before. */
  private static String sessionChange(
      Statements statements, Connection connection, long key, int pid, boolean holds)
      throws SQLException {
    return statements.query(
        connection,
        SESSION_SQL,
        rs -> {
          rs.next();
          int now = rs.getInt(1);
          if (now != pid) {
            return "a connection of its pool moved from server process "
                + pid
                + " to "
                + now
                + " between two statements";
          }
          if (holds && !rs.getBoolean(2)) {
            return "a connection of its pool lost its advisory lock "
                + key
                + " between two statements";
          }
          return null;
        },
        AdvisoryPin.keyHalves(key));
  }

  private static void bestEffortUnlock(Statements statements, Connection connection, long key) {
    try {
      statements.query(connection, AdvisoryPin.UNLOCK_SQL, rs -> null, key);
    } catch (SQLException e) {
      LOG.debug("writer-fence: could not unlock the self-check's key {}", key, e);
    }
  }
}
