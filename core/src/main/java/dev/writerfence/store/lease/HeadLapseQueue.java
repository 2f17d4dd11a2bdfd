package dev.writerfence.store.lease;

import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.jdbc.Statements;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Contract version 5's part of {@link PgLeaseStore}'s queue (V5__head_lapse.sql, ADR 68): polls
 * that say the waiter's head lapse ({@code acquire_turn_ms} with its eighth argument), and the
 * housekeeping of a waiting process ({@code clear_lapsed_tickets()}), which deletes the lapsed
 * tickets of every fence at most once per {@link #HOUSEKEEPING_SECONDS} seconds.
 *
 * <p>Against an older contract (the functions unknown, SQLState 42883) both stop for good, with one
 * INFO line: polls go to the calls of versions 2 to 4, which count a ticket's whole lapse as its
 * head lapse, as those versions did, and no housekeeping runs. Thread-safe.
 */
final class HeadLapseQueue {
  /** The contract version that knows head lapses. */
  static final int SINCE = 5;

  /** How often a waiting process deletes the lapsed tickets of every fence, at most. */
  static final long HOUSEKEEPING_SECONDS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(HeadLapseQueue.class);
  private static final String UNDEFINED_FUNCTION = "42883";

  private final Statements statements;
  private final String schema;
  private final String turnSql;
  private final String housekeepingSql;
  private volatile boolean known = true; // until the database says it has no version 5
  private final AtomicLong nextHousekeeping = new AtomicLong(System.nanoTime());

  HeadLapseQueue(Statements statements, String schema) {
    this.statements = statements;
    this.schema = schema;
    this.turnSql =
        "SELECT fencing_token, acquired_at, expires_at, place, waiters FROM "
            + schema
            + ".acquire_turn_ms(?, ?, ?, ?, ?, ?, ?, ?)";
    this.housekeepingSql = "SELECT " + schema + ".clear_lapsed_tickets()";
  }

  /**
   * One poll with a head lapse, and the housekeeping when it is due.
   *
   * @param fenceName the ticket's fence name, for errors
   * @param answer reads the poll's row
   * @param values {@code acquire_turn_ms}'s eight arguments, the head lapse in milliseconds last
   * @return the answer, or {@code null} when the contract is older than version 5: poll without a
   *     head lapse then
   * @throws RuntimeException as {@link Statements#call} throws for any other failure
   */
  <T> T poll(String fenceName, Statements.Answer<T> answer, Object... values) {
    if (!known) {
      return null;
    }
    T polled;
    try {
      polled = statements.query(turnSql, answer, values);
    } catch (SQLException e) {
      if (!UNDEFINED_FUNCTION.equals(e.getSQLState())) {
        throw SqlErrors.classify(fenceName, schema, e);
      }
      olderContract(e);
      return null;
    }
    housekeepIfDue();
    return polled;
  }

  /** Deletes the lapsed tickets of every fence when the last time was long enough ago. */
  private void housekeepIfDue() {
    long now = System.nanoTime();
    long due = nextHousekeeping.get();
    if (now - due < 0
        || !nextHousekeeping.compareAndSet(
            due, now + TimeUnit.SECONDS.toNanos(HOUSEKEEPING_SECONDS))) {
      return;
    }
    try {
      int cleared = statements.query(housekeepingSql, rs -> rs.next() ? rs.getInt(1) : 0);
      LOG.debug("writer-fence: deleted {} lapsed tickets in schema '{}'", cleared, schema);
    } catch (SQLException e) {
      if (UNDEFINED_FUNCTION.equals(e.getSQLState())) {
        olderContract(e);
      } else { // housekeeping only: the next one tries again
        LOG.debug("writer-fence: could not delete lapsed tickets in schema '{}'", schema, e);
      }
    }
  }

  private void olderContract(SQLException e) {
    if (known) {
      known = false;
      LOG.info(
          "writer-fence: schema '{}' holds an SQL contract older than version {} ({}): a dead"
              + " head of a queue is passed over only when its ticket lapses, and lapsed tickets"
              + " of quiet fences stay until their fence is used. Upgrade in place with"
              + " FenceSchema.install(...) or './writer-fence schema install --jdbc-url URL'",
          schema,
          SINCE,
          e.getMessage());
    }
  }
}
