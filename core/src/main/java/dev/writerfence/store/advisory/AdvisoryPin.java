package dev.writerfence.store.advisory;

import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.jdbc.SqlErrors;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One hold of the advisory-lock store, and the handle its acquire returns: the connection pinned
 * out of the store's pool whose session holds the lock, the key, and the lease it stands for.
 * Renewal checks the session still holds the key; release unlocks it; either ends the hold (the pin
 * leaves the store's pins and its connection goes back, or is closed when it is dead).
 */
final class AdvisoryPin implements StoreLease {
  /** The store's category: what operators filter on stays the one class they know. */
  private static final Logger LOG = LoggerFactory.getLogger(AdvisoryLockStore.class);

  /**
   * Whether this session holds the key whose halves are the two parameters, per {@link #keyHalves}.
   */
  static final String HELD_BY_ME =
      "EXISTS (SELECT 1 FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory'"
          + " AND l.pid = pg_catalog.pg_backend_pid() AND l.granted AND l.objsubid = 1"
          + " AND l.classid::bigint = ? AND l.objid::bigint = ?)";

  static final String UNLOCK_SQL = "SELECT pg_catalog.pg_advisory_unlock(?)";

  private static final String RENEW_SQL = "SELECT " + HELD_BY_ME + ", pg_catalog.clock_timestamp()";

  /**
   * What an acquire granted, as the store tells it to operators and in its messages.
   *
   * @param fenceName the fence name
   * @param holderToken the holder token
   * @param holderLabel the holder label, or {@code null}
   * @param fencingToken from the contract's sequence
   * @param acquiredAt the acquire's database time
   * @param expiresAt {@code acquiredAt} + the TTL
   */
  record Grant(
      String fenceName,
      UUID holderToken,
      String holderLabel,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt) {}

  final Connection connection;
  final long key;
  final int backendPid;
  final Grant lease;
  private final AdvisoryPool pool;
  private final Map<UUID, AdvisoryPin> pins;
  boolean ended; // guarded by this

  /**
   * @param pool where the connection goes back
   * @param pins the store's holds, which this one leaves when it ends
   * @param connection the pinned connection, whose session holds the lock
   * @param key the advisory key
   * @param backendPid the session's server process
   * @param lease what the acquire granted
   */
  AdvisoryPin(
      AdvisoryPool pool,
      Map<UUID, AdvisoryPin> pins,
      Connection connection,
      long key,
      int backendPid,
      Grant lease) {
    this.pool = pool;
    this.pins = pins;
    this.connection = connection;
    this.key = key;
    this.backendPid = backendPid;
    this.lease = lease;
  }

  @Override
  public long fencingToken() {
    return lease.fencingToken();
  }

  @Override
  public Instant acquiredAt() {
    return lease.acquiredAt();
  }

  @Override
  public Instant expiresAt() {
    return lease.expiresAt();
  }

  /**
   * Checks that the pinned connection is alive and its session still holds the lock. Nothing is
   * extended on the server (there is no TTL there).
   *
   * @param ttl whole milliseconds from 1 ms to one day
   * @return the database time now + {@code ttl} when the session still holds the lock; empty (lost)
   *     when the hold ended (released, or found lost), the connection is dead (the server frees, or
   *     has freed, the lock with the session), or the session no longer holds the lock
   * @throws WriterFenceUnavailableException when the live connection did not answer in time
   */
  @Override
  public synchronized Optional<Instant> renew(Duration ttl) {
    FenceArguments.ttlMillis(ttl);
    if (ended) {
      return Optional.empty();
    }
    try {
      Optional<Instant> confirmed =
          pool.statements()
              .query(
                  connection,
                  RENEW_SQL,
                  rs -> {
                    rs.next();
                    return rs.getBoolean(1)
                        ? Optional.of(instant(rs, 2).plus(ttl))
                        : Optional.<Instant>empty();
                  },
                  keyHalves(key));
      if (confirmed.isPresent()) {
        return confirmed;
      }
      LOG.error(
          "writer-fence: fence '{}' (fencing token {}): the pinned session (server process {})"
              + " no longer holds advisory lock {}; the lease is lost",
          lease.fenceName(),
          lease.fencingToken(),
          backendPid,
          key);
      end(false);
      return Optional.empty();
    } catch (SQLException e) {
      if (isDead(connection, e)) {
        LOG.warn(
            "writer-fence: fence '{}' (fencing token {}): the pinned connection is dead (SQLState"
                + " {}); the server frees the advisory lock with its session; the lease is lost",
            lease.fenceName(),
            lease.fencingToken(),
            e.getSQLState());
        end(true);
        return Optional.empty();
      }
      throw SqlErrors.classify(lease.fenceName(), pool.schema(), e);
    }
  }

  /**
   * Unlocks with {@code pg_advisory_unlock} on the pinned connection and gives the connection back.
   *
   * @return {@code true} when unlocked; {@code false} when the hold ended already (released, or
   *     found lost by {@link #renew})
   * @throws AdvisoryUnlockException when {@code pg_advisory_unlock} answered {@code false}: the
   *     session no longer held the lock, so others may have held the fence meanwhile; also logged
   *     as an error
   * @throws WriterFenceUnavailableException when the unlock failed; the connection is then closed,
   *     and the server frees the lock with its session
   */
  @Override
  public synchronized boolean release() {
    if (ended) {
      return false;
    }
    boolean unlocked;
    try {
      unlocked =
          pool.statements()
              .query(
                  connection,
                  UNLOCK_SQL,
                  rs -> {
                    rs.next();
                    return rs.getBoolean(1);
                  },
                  key);
    } catch (SQLException e) {
      end(true); // closing the session frees the lock, whatever state it is in
      RuntimeException classified = SqlErrors.classify(lease.fenceName(), pool.schema(), e);
      throw new WriterFenceUnavailableException(
          lease.fenceName(),
          "writer-fence: fence '"
              + lease.fenceName()
              + "': pg_advisory_unlock failed; the pinned connection was closed, so the server"
              + " frees the lock with its session: "
              + classified.getMessage(),
          e);
    }
    end(false);
    if (!unlocked) {
      AdvisoryUnlockException e =
          new AdvisoryUnlockException(
              lease.fenceName(), lease.fencingToken(), lease.holderLabel(), key, backendPid);
      LOG.error("{}", e.getMessage());
      throw e;
    }
    return true;
  }

  /**
   * Ends the hold, unless it ended already, by closing its connection (the server frees the lock).
   */
  synchronized void endByClosing() {
    if (!ended) {
      end(true);
    }
  }

  /**
   * Ends the hold: forgets it and gives its connection back (closed first when {@code discard}).
   */
  private void end(boolean discard) {
    ended = true;
    pins.remove(lease.holderToken(), this);
    if (discard) {
      AdvisoryPool.discard(connection);
      pool.releasePermits(1);
    } else {
      pool.giveBack(connection, false);
    }
  }

  private static boolean isDead(Connection connection, SQLException e) {
    String state = e.getSQLState();
    if (state != null && state.startsWith("08")) {
      return true;
    }
    try {
      return connection.isClosed() || !connection.isValid(1);
    } catch (SQLException notValid) {
      return true;
    }
  }

  /**
   * A 64-bit key as the two halves {@code pg_locks} shows it in, as the parameters of a statement.
   *
   * @return {@code pg_locks.classid} (the high 32 bits, unsigned) then {@code pg_locks.objid} (the
   *     low 32 bits, unsigned), each a {@link Long}
   */
  static Object[] keyHalves(long key) {
    return new Object[] {key >>> 32, key & 0xFFFF_FFFFL};
  }

  static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }
}
