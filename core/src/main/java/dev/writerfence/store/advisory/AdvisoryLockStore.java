package dev.writerfence.store.advisory;

import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceInterruptedException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.lease.PgLeaseStore;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The advisory-lock backend (ADR 7): a fence is a PostgreSQL session advisory lock on the 64-bit
 * key {@link AdvisoryKeys#keyOf} of its name (or of the text the store's key scheme or the call's
 * advisory key text makes of it, ADR 58), held on a connection pinned out of the store's own
 * bounded pool for the whole hold.
 *
 * <ul>
 *   <li><b>Acquire</b>: borrows a connection and runs one statement, {@code pg_try_advisory_lock}.
 *       Busy: the connection goes back at once. Won: the same statement takes the fencing token
 *       from the sequence {@code <schema>.advisory_fencing_token} (through the SECURITY DEFINER
 *       function {@code <schema>.next_advisory_fencing_token()}), so a busy attempt consumes no
 *       token, and the connection stays pinned to the holder token until release.
 *   <li><b>Release</b>: {@code pg_advisory_unlock} on the pinned connection, then the connection
 *       goes back. An answer of {@code false} means the session no longer held the lock (someone
 *       unlocked it, or the session was reset under the store): that is raised as {@link
 *       AdvisoryUnlockException} and logged as an error, never ignored.
 *   <li><b>No TTL on the server</b>: the lock is held until release or until the pinned connection
 *       ends, however long that is; PostgreSQL frees it when the session ends (crash, {@code kill
 *       -9}, a dropped connection). The {@code ttl} passed to {@link #acquire} and {@link #renew}
 *       is not sent to the server: it only sets the lease's {@link
 *       dev.writerfence.FenceLease#expiresAt() expiresAt} (database time of the acquire or renewal
 *       + ttl), the time by which this process wants the hold confirmed again. No other holder ever
 *       takes over at that time.
 *   <li><b>Renew</b> is a liveness check of the pinned connection: one statement asks {@code
 *       pg_locks} whether this session still holds the key. A dead connection, or a session that no
 *       longer holds the lock, answers empty (lost).
 *   <li><b>Status</b> reads {@code pg_locks}; see {@link #status}.
 *   <li><b>No queue</b> ({@link #keepsQueue()} is {@code false}): an advisory lock has no waiters
 *       the server could order, so this store falls back to the {@link LeaseStore} defaults: {@link
 *       #acquireInTurn} is one plain {@link #acquire} (the ticket's priority and lapse play no
 *       part, and nobody's turn is kept), {@code enqueue} and {@code leaveQueue} do nothing, and
 *       {@code queue} is empty. Writers on this backend race as before; choose the lease backend
 *       for fair turns and priorities.
 * </ul>
 *
 * <p>Pool: at most {@code poolSize} connections of the given DataSource are in use at once, one per
 * hold and one per attempt in flight; a borrow that finds none free within the borrow timeout is
 * {@link WriterFenceUnavailableException} naming the pool size, never a hang. Give the store a
 * DataSource of its own (a small HikariCP pool of at least {@code poolSize} connections, or
 * pgjdbc's unpooled {@code PGSimpleDataSource}), never the application's pool: held locks would
 * starve it, and a connection the application uses may carry a transaction.
 *
 * <p>Start-up self-check: {@link Builder#build()} takes a random advisory key on one connection of
 * the pool and tries it on a second one. If the second one also wins (the two share a server
 * session, as behind PgBouncer in transaction pooling mode), or a connection changes server process
 * between two statements, the store refuses to start with an {@link IllegalStateException} naming
 * transaction pooling: there, a session advisory lock excludes nobody. PgBouncer in session mode
 * passes.
 *
 * <p>Two stores are equal when they use the same DataSource object (identity) and schema: a fenced
 * call nested in a hold of an equal store re-enters that hold. A store is never equal to a {@link
 * PgLeaseStore}: the two backends do not exclude each other, so every writer of one fence name must
 * use the same backend.
 *
 * <p>Thread-safe.
 */
public final class AdvisoryLockStore implements LeaseStore, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AdvisoryLockStore.class);

  /** Connections used at most at once when none is configured: 4. */
  public static final int DEFAULT_POOL_SIZE = 4;

  /** How long a borrow waits for a free connection of the pool when none is configured: 1 s. */
  public static final Duration DEFAULT_BORROW_TIMEOUT = Duration.ofSeconds(1);

  /** Query timeout when none is configured: 10 s. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(10);

  private static final String HELD_BY_ME =
      "EXISTS (SELECT 1 FROM pg_catalog.pg_locks l WHERE l.locktype = 'advisory'"
          + " AND l.pid = pg_catalog.pg_backend_pid() AND l.granted AND l.objsubid = 1"
          + " AND l.classid::bigint = ? AND l.objid::bigint = ?)";
  private static final String RENEW_SQL = "SELECT " + HELD_BY_ME + ", pg_catalog.clock_timestamp()";
  private static final String UNLOCK_SQL = "SELECT pg_catalog.pg_advisory_unlock(?)";
  private static final String UNLOCK_ALL_SQL = "SELECT pg_catalog.pg_advisory_unlock_all()";
  private static final String TRY_LOCK_SQL =
      "SELECT pg_catalog.pg_try_advisory_lock(?), pg_catalog.pg_backend_pid()";
  private static final String SESSION_SQL = "SELECT pg_catalog.pg_backend_pid(), " + HELD_BY_ME;

  /** Granted advisory locks on 64-bit keys in this database: pid, key halves. */
  private static final String LOCKS_SQL =
      "SELECT l.pid, l.classid::bigint, l.objid::bigint FROM pg_catalog.pg_locks l"
          + " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
          + " AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d"
          + " WHERE d.datname = pg_catalog.current_database())";

  private static final SecureRandom RANDOM = new SecureRandom();

  private final DataSource dataSource;
  private final String schema;
  private final int poolSize;
  private final Semaphore pool;
  private final long borrowTimeoutNanos;
  private final int queryTimeoutSeconds;
  private final String acquireSql;
  private final String keyScheme;
  private final boolean defaultScheme;
  private final ConcurrentMap<UUID, Pin> pins = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** What an acquire granted, as this store tells it to operators and in its messages. */
  private record Grant(
      String fenceName,
      UUID holderToken,
      String holderLabel,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt) {}

  /**
   * One hold, and the handle its acquire returns: the connection whose session holds the lock, and
   * the lease it stands for.
   */
  private final class Pin implements StoreLease {
    final Connection connection;
    final long key;
    final int backendPid;
    final Grant lease;
    boolean ended; // guarded by this

    Pin(Connection connection, long key, int backendPid, Grant lease) {
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

    @Override
    public Optional<Instant> renew(Duration ttl) {
      return AdvisoryLockStore.this.renew(this, ttl);
    }

    @Override
    public boolean release() {
      return AdvisoryLockStore.this.release(this);
    }
  }

  private AdvisoryLockStore(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    this.poolSize = b.poolSize;
    this.pool = new Semaphore(b.poolSize, true);
    this.borrowTimeoutNanos = b.borrowTimeout.toNanos();
    this.queryTimeoutSeconds = PgLeaseStore.queryTimeoutSeconds(b.queryTimeout);
    this.keyScheme = b.keyScheme;
    this.defaultScheme = AdvisoryKeys.DEFAULT_KEY_SCHEME.equals(b.keyScheme);
    // One round trip: the token is taken only when the lock was won (CASE evaluates THEN only
    // then); the CTE is evaluated once because pg_try_advisory_lock is volatile.
    this.acquireSql =
        "WITH attempt AS (SELECT pg_catalog.pg_try_advisory_lock(?) AS won)"
            + " SELECT won, CASE WHEN won THEN "
            + schema
            + ".next_advisory_fencing_token() END, pg_catalog.clock_timestamp(),"
            + " pg_catalog.pg_backend_pid() FROM attempt";
  }

  /**
   * A store with the default query and borrow timeouts, after its self-check passed.
   *
   * @param dataSource connections of the store's own, see the class description; never {@code null}
   * @param poolSize at most this many connections in use at once (one per hold, one per attempt in
   *     flight); at least 2, which the self-check needs
   * @param schema the contract's schema (where {@code next_advisory_fencing_token()} lives), a
   *     plain lower-case SQL identifier
   * @return the started store
   * @throws IllegalArgumentException naming a value that breaks its rule
   * @throws IllegalStateException when the self-check finds that connections share a server session
   *     (transaction pooling)
   * @throws WriterFenceUnavailableException when the self-check cannot reach the database
   */
  public static AdvisoryLockStore create(DataSource dataSource, int poolSize, String schema) {
    return builder(dataSource).poolSize(poolSize).schema(schema).build();
  }

  /**
   * @param dataSource connections of the store's own, see the class description; never {@code null}
   * @return a builder
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * @return the schema this store takes fencing tokens from
   */
  public String schema() {
    return schema;
  }

  /**
   * @return the most connections this store uses at once
   */
  public int poolSize() {
    return poolSize;
  }

  /**
   * Tries once to take the advisory lock of {@code fenceName}; never waits on another holder.
   *
   * @param fenceName the fence name, already checked
   * @param holderToken the holder token; the same token again while it holds this fence gets its
   *     current lease back, without a second lock
   * @param holderLabel the holder label, or {@code null}; kept in this process only (other
   *     processes' {@link #status} cannot show it)
   * @param ttl whole seconds from 1 to 86400; not sent to the server (no TTL there): the lease's
   *     {@code expiresAt} is the acquire's database time + {@code ttl}
   * @return the lease, or empty when another session holds the lock (busy)
   * @throws WriterFenceUnavailableException when the pool is exhausted (naming its size), or the
   *     database cannot confirm the lock
   * @throws IllegalArgumentException when {@code ttl} breaks its rule, or the holder token already
   *     holds another fence in this store
   */
  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    return acquire(fenceName, null, holderToken, holderLabel, ttl);
  }

  /**
   * Tries once to take the advisory lock an advisory key text names ({@link
   * AdvisoryKeys#keyOfText}), or, without one, the key of {@code fenceName} under this store's key
   * scheme; otherwise as {@link #acquire(String, UUID, String, Duration)}. The lease keeps the
   * fence name as its identity; its key is what renewal, release and {@link #status} check.
   *
   * @param fenceName the fence name, already checked
   * @param advisoryKey the key text, or {@code null} for the key scheme's text of the fence name
   * @param holderToken the holder token
   * @param holderLabel the holder label, or {@code null}
   * @param ttl whole seconds from 1 to 86400
   * @return the lease, or empty when another session holds the lock (busy)
   * @throws WriterFenceUnavailableException as {@link #acquire(String, UUID, String, Duration)}
   * @throws IllegalArgumentException when {@code ttl} or the key text breaks its rule, or the
   *     holder token already holds another fence or key in this store
   */
  @Override
  public Optional<StoreLease> acquire(
      String fenceName, String advisoryKey, UUID holderToken, String holderLabel, Duration ttl) {
    FenceArguments.ttlSeconds(ttl);
    long key = keyOf(fenceName, advisoryKey);
    Pin existing = pins.get(holderToken);
    if (existing != null) {
      if (existing.lease.fenceName().equals(fenceName) && existing.key == key) {
        return Optional.of(existing);
      }
      throw new IllegalArgumentException(
          "writer-fence: holder token "
              + holderToken
              + " already holds fence '"
              + existing.lease.fenceName()
              + "' in this store; mint a new holder token for fence '"
              + fenceName
              + "'");
    }
    Connection connection = borrow(fenceName);
    boolean pinned = false;
    boolean mayHoldLock = false;
    try (PreparedStatement ps = connection.prepareStatement(acquireSql)) {
      ps.setQueryTimeout(queryTimeoutSeconds);
      ps.setLong(1, key);
      mayHoldLock = true;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          mayHoldLock = false;
          return Optional.empty();
        }
        long token = rs.getLong(2);
        Instant now = instant(rs, 3);
        Grant lease = new Grant(fenceName, holderToken, holderLabel, token, now, now.plus(ttl));
        Pin pin = new Pin(connection, key, rs.getInt(4), lease);
        pins.put(holderToken, pin);
        pinned = true;
        return Optional.of(pin);
      }
    } catch (SQLException e) {
      // A session lock outlives the failed statement's transaction: the lock may have been won.
      throw SqlErrors.classify(fenceName, schema, e);
    } finally {
      if (!pinned) {
        giveBack(connection, mayHoldLock);
      }
    }
  }

  /**
   * One plain {@link #acquire(String, String, UUID, String, Duration)}: this store keeps no queue,
   * so the ticket's priority plays no part.
   *
   * @param ticket the writer's ticket
   * @param advisoryKey the key text, or {@code null} for the key scheme's
   * @param holderToken the holder token
   * @param ttl whole seconds from 1 to 86400
   * @return the lease, or {@link Turn#BUSY_UNQUEUED}
   */
  @Override
  public Turn acquireInTurn(Ticket ticket, String advisoryKey, UUID holderToken, Duration ttl) {
    return acquire(ticket.fenceName(), advisoryKey, holderToken, ticket.holderLabel(), ttl)
        .map(lease -> Turn.granted(lease, 0))
        .orElse(Turn.BUSY_UNQUEUED);
  }

  /**
   * @return the key this store locks for a fence name: the advisory key text's, or the key scheme's
   *     text of the name
   */
  private long keyOf(String fenceName, String advisoryKey) {
    if (advisoryKey != null) {
      return AdvisoryKeys.keyOfText(advisoryKey);
    }
    return defaultScheme
        ? AdvisoryKeys.keyOf(fenceName)
        : AdvisoryKeys.keyOfText(AdvisoryKeys.keyText(keyScheme, fenceName));
  }

  /**
   * @return the key scheme: the text whose {@code {name}} is each fence name, hashed into its key
   *     unless a call names its own advisory key text
   */
  public String keyScheme() {
    return keyScheme;
  }

  /**
   * Checks that the pinned connection is alive and its session still holds the lock. Nothing is
   * extended on the server (there is no TTL there).
   *
   * @param pin a hold of this store
   * @param ttl whole seconds from 1 to 86400
   * @return the database time now + {@code ttl} when the session still holds the lock; empty (lost)
   *     when the hold ended (released, or found lost), the connection is dead (the server frees, or
   *     has freed, the lock with the session), or the session no longer holds the lock
   * @throws WriterFenceUnavailableException when the live connection did not answer in time
   */
  private Optional<Instant> renew(Pin pin, Duration ttl) {
    FenceArguments.ttlSeconds(ttl);
    Grant lease = pin.lease;
    synchronized (pin) {
      if (pin.ended) {
        return Optional.empty();
      }
      try (PreparedStatement ps = pin.connection.prepareStatement(RENEW_SQL)) {
        ps.setQueryTimeout(queryTimeoutSeconds);
        setKey(ps, 1, pin.key);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (rs.getBoolean(1)) {
            return Optional.of(instant(rs, 2).plus(ttl));
          }
        }
        LOG.error(
            "writer-fence: fence '{}' (fencing token {}): the pinned session (server process {})"
                + " no longer holds advisory lock {}; the lease is lost",
            lease.fenceName(),
            lease.fencingToken(),
            pin.backendPid,
            pin.key);
        unpin(pin, false);
        return Optional.empty();
      } catch (SQLException e) {
        if (isDead(pin.connection, e)) {
          LOG.warn(
              "writer-fence: fence '{}' (fencing token {}): the pinned connection is dead (SQLState"
                  + " {}); the server frees the advisory lock with its session; the lease is lost",
              lease.fenceName(),
              lease.fencingToken(),
              e.getSQLState());
          unpin(pin, true);
          return Optional.empty();
        }
        throw SqlErrors.classify(lease.fenceName(), schema, e);
      }
    }
  }

  /**
   * Unlocks with {@code pg_advisory_unlock} on the pinned connection and gives the connection back.
   *
   * @param pin a hold of this store
   * @return {@code true} when unlocked; {@code false} when the hold ended already (released, or
   *     found lost by {@link #renew})
   * @throws AdvisoryUnlockException when {@code pg_advisory_unlock} answered {@code false}: the
   *     session no longer held the lock, so others may have held the fence meanwhile; also logged
   *     as an error
   * @throws WriterFenceUnavailableException when the unlock failed; the connection is then closed,
   *     and the server frees the lock with its session
   */
  private boolean release(Pin pin) {
    Grant lease = pin.lease;
    synchronized (pin) {
      if (pin.ended) {
        return false;
      }
      boolean unlocked;
      try (PreparedStatement ps = pin.connection.prepareStatement(UNLOCK_SQL)) {
        ps.setQueryTimeout(queryTimeoutSeconds);
        ps.setLong(1, pin.key);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          unlocked = rs.getBoolean(1);
        }
      } catch (SQLException e) {
        unpin(pin, true); // closing the session frees the lock, whatever state it is in
        RuntimeException classified = SqlErrors.classify(lease.fenceName(), schema, e);
        throw new WriterFenceUnavailableException(
            lease.fenceName(),
            "writer-fence: fence '"
                + lease.fenceName()
                + "': pg_advisory_unlock failed; the pinned connection was closed, so the server"
                + " frees the lock with its session: "
                + classified.getMessage(),
            e);
      }
      unpin(pin, false);
      if (!unlocked) {
        AdvisoryUnlockException e =
            new AdvisoryUnlockException(
                lease.fenceName(),
                lease.fencingToken(),
                lease.holderLabel(),
                pin.key,
                pin.backendPid);
        LOG.error("{}", e.getMessage());
        throw e;
      }
      return true;
    }
  }

  /**
   * What {@code pg_locks} shows of a fence, in one statement. It can show whether some session of
   * this database holds the fence's key, and which server process. It cannot show who holds it in
   * another process: the holder label, fencing token and acquisition time live in the holding
   * process only. So a row for a hold through this store carries its label, fencing token and
   * acquisition time; a row for any other holder has a {@code null} label and acquisition time and
   * fencing token 0. There is no expiry: {@code expiresAt} and {@code secondsLeft} are {@code
   * null}. It cannot tell a fence that was never acquired from one that was released: both are
   * empty.
   *
   * @param fenceName the fence name
   * @return a row in state {@code held}, or empty when no session holds the key
   * @throws WriterFenceUnavailableException when the pool is exhausted or the database cannot be
   *     reached
   */
  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    long key = keyOf(fenceName, null);
    for (Pin pin : pins.values()) {
      if (pin.lease.fenceName().equals(fenceName)) {
        key = pin.key; // held here, perhaps under an advisory key text of its call
        break;
      }
    }
    Map<Long, List<Integer>> locks = locks(fenceName);
    List<Integer> holders = locks.getOrDefault(key, List.of());
    if (holders.isEmpty()) {
      return Optional.empty();
    }
    for (Pin pin : pins.values()) {
      if (pin.key == key && holders.contains(pin.backendPid)) {
        return Optional.of(held(pin.lease));
      }
    }
    return Optional.of(new LeaseStatus(fenceName, null, 0L, null, null, null, "held"));
  }

  /**
   * The fences held through this store, as {@link #status} shows them, confirmed by one {@code
   * pg_locks} statement (none when nothing is held). Advisory locks of other processes cannot be
   * listed by name (the key is a one-way hash): ask {@link #status} for a known name.
   *
   * @return the held fences of this store, ordered by fence name
   * @throws WriterFenceUnavailableException when the pool is exhausted or the database cannot be
   *     reached
   */
  @Override
  public List<LeaseStatus> statusAll() {
    if (pins.isEmpty()) {
      return List.of();
    }
    Map<Long, List<Integer>> locks = locks("*");
    List<LeaseStatus> rows = new ArrayList<>();
    for (Pin pin : pins.values()) {
      if (locks.getOrDefault(pin.key, List.of()).contains(pin.backendPid)) {
        rows.add(held(pin.lease));
      }
    }
    rows.sort(Comparator.comparing(LeaseStatus::fenceName));
    return rows;
  }

  /**
   * Ends every hold of this store by closing its pinned connections (the server frees their locks)
   * and refuses further acquires. Their leases are lost: {@link #renew} answers empty and {@link
   * #release} {@code false}. Does not close the DataSource.
   */
  @Override
  public void close() {
    closed = true;
    for (Pin pin : pins.values()) {
      synchronized (pin) {
        if (!pin.ended) {
          unpin(pin, true);
        }
      }
    }
  }

  /**
   * Test hook: the connection pinned for a lease, to provoke what no caller should do.
   *
   * @param holderToken the lease's holder token
   */
  Optional<Connection> pinnedConnection(UUID holderToken) {
    return Optional.ofNullable(pins.get(holderToken)).map(pin -> pin.connection);
  }

  private static LeaseStatus held(Grant lease) {
    return new LeaseStatus(
        lease.fenceName(),
        lease.holderLabel(),
        lease.fencingToken(),
        lease.acquiredAt(),
        null,
        null,
        "held");
  }

  private Map<Long, List<Integer>> locks(String fenceName) {
    Connection connection = borrow(fenceName);
    try (PreparedStatement ps = connection.prepareStatement(LOCKS_SQL)) {
      ps.setQueryTimeout(queryTimeoutSeconds);
      Map<Long, List<Integer>> locks = new HashMap<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long key = (rs.getLong(2) << 32) | rs.getLong(3);
          locks.computeIfAbsent(key, k -> new ArrayList<>()).add(rs.getInt(1));
        }
      }
      return locks;
    } catch (SQLException e) {
      throw SqlErrors.classify(fenceName, schema, e);
    } finally {
      giveBack(connection, false);
    }
  }

  /** Ends a hold: forgets it and gives its connection back (closed first when {@code discard}). */
  private void unpin(Pin pin, boolean discard) {
    pin.ended = true;
    pins.remove(pin.lease.holderToken(), pin);
    if (discard) {
      discard(pin.connection);
      pool.release();
    } else {
      giveBack(pin.connection, false);
    }
  }

  private Connection borrow(String fenceName) {
    if (closed) {
      throw new WriterFenceUnavailableException(
          fenceName,
          "writer-fence: fence '" + fenceName + "': the advisory-lock store is closed",
          null);
    }
    boolean permitted;
    try {
      permitted = pool.tryAcquire(borrowTimeoutNanos, TimeUnit.NANOSECONDS);
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
      pool.release();
      throw SqlErrors.classify(fenceName, schema, e);
    } catch (RuntimeException | Error e) {
      pool.release();
      throw e;
    }
  }

  /**
   * Returns a connection to the DataSource and its permit to the pool. When the connection may hold
   * a lock (a statement that tried one failed), the session's advisory locks are dropped first; if
   * that fails too, the connection is closed for good, which ends the session.
   */
  private void giveBack(Connection connection, boolean mayHoldLock) {
    try {
      if (mayHoldLock) {
        try (PreparedStatement ps = connection.prepareStatement(UNLOCK_ALL_SQL)) {
          ps.setQueryTimeout(queryTimeoutSeconds);
          ps.execute();
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
      pool.release();
    }
  }

  /** Ends the session for good: aborts the physical connection, then closes the handle. */
  private static void discard(Connection connection) {
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

  private static void setKey(PreparedStatement ps, int index, long key) throws SQLException {
    ps.setLong(index, key >>> 32); // pg_locks.classid: the high 32 bits, unsigned
    ps.setLong(index + 1, key & 0xFFFF_FFFFL); // pg_locks.objid: the low 32 bits, unsigned
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    return rs.getObject(column, OffsetDateTime.class).toInstant();
  }

  /**
   * Proves with two connections of the pool that an advisory lock taken on one excludes the other,
   * and that each keeps its server process from one statement to the next.
   */
  private void selfCheck() {
    String what = "*";
    Connection first = borrow(what);
    Connection second;
    try {
      second = borrow(what);
    } catch (RuntimeException e) {
      giveBack(first, false);
      throw e;
    }
    long key = RANDOM.nextLong();
    String refusal = null;
    try {
      int firstPid;
      try (PreparedStatement ps = first.prepareStatement(TRY_LOCK_SQL)) {
        ps.setQueryTimeout(queryTimeoutSeconds);
        ps.setLong(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          if (!rs.getBoolean(1)) {
            throw new IllegalStateException(
                "writer-fence: the advisory-lock store's self-check found its random key "
                    + key
                    + " already locked by another session; try again");
          }
          firstPid = rs.getInt(2);
        }
      }
      int secondPid;
      try (PreparedStatement ps = second.prepareStatement(TRY_LOCK_SQL)) {
        ps.setQueryTimeout(queryTimeoutSeconds);
        ps.setLong(1, key);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          secondPid = rs.getInt(2);
          if (rs.getBoolean(1)) {
            refusal =
                "two connections of its pool both won advisory lock "
                    + key
                    + " (server processes "
                    + firstPid
                    + " and "
                    + secondPid
                    + "): they share a server session";
          }
        }
      }
      if (refusal == null) {
        refusal = sessionChange(first, key, firstPid, true);
      }
      if (refusal == null) {
        refusal = sessionChange(second, key, secondPid, false);
      }
    } catch (SQLException e) {
      RuntimeException classified = SqlErrors.classify(what, schema, e);
      throw new WriterFenceUnavailableException(
          what,
          "writer-fence: the advisory-lock store's start-up self-check could not run: "
              + classified.getMessage(),
          e);
    } finally {
      if (refusal == null) {
        giveBack(second, true);
        giveBack(first, true);
      } else {
        // Behind a session-multiplexing pooler the lock sits on a shared server session, which
        // outlives our connections: unlock it there once per win, best effort.
        bestEffortUnlock(second, key);
        bestEffortUnlock(first, key);
        discard(second);
        discard(first);
        pool.release(2);
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

  /** Checks that a connection is still on the server process that answered before. */
  private String sessionChange(Connection connection, long key, int pid, boolean holds)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(SESSION_SQL)) {
      ps.setQueryTimeout(queryTimeoutSeconds);
      setKey(ps, 1, key);
      try (ResultSet rs = ps.executeQuery()) {
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
      }
    }
  }

  private void bestEffortUnlock(Connection connection, long key) {
    try (PreparedStatement ps = connection.prepareStatement(UNLOCK_SQL)) {
      ps.setQueryTimeout(queryTimeoutSeconds);
      ps.setLong(1, key);
      ps.execute();
    } catch (SQLException e) {
      LOG.debug("writer-fence: could not unlock the self-check's key {}", key, e);
    }
  }

  /**
   * @param other another object
   * @return {@code true} when {@code other} is an {@code AdvisoryLockStore} on the same DataSource
   *     object, schema and key scheme (pool size and timeouts play no part)
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof AdvisoryLockStore that
        && dataSource == that.dataSource
        && schema.equals(that.schema)
        && keyScheme.equals(that.keyScheme);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * System.identityHashCode(dataSource) + schema.hashCode())
        + keyScheme.hashCode();
  }

  @Override
  public String toString() {
    return "AdvisoryLockStore[schema="
        + schema
        + ", poolSize="
        + poolSize
        + ", keyScheme="
        + keyScheme
        + "]";
  }

  /** Builds an {@link AdvisoryLockStore}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private int poolSize = DEFAULT_POOL_SIZE;
    private String schema = FenceSchema.DEFAULT_SCHEMA;
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
    private Duration borrowTimeout = DEFAULT_BORROW_TIMEOUT;
    private String keyScheme = AdvisoryKeys.DEFAULT_KEY_SCHEME;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * @param poolSize at most this many connections in use at once: one per hold, one per attempt
     *     in flight; at least 2 (the self-check needs two); default {@value
     *     AdvisoryLockStore#DEFAULT_POOL_SIZE}
     * @return this builder
     * @throws IllegalArgumentException naming the value when it is under 2
     */
    public Builder poolSize(int poolSize) {
      if (poolSize < 2) {
        throw new IllegalArgumentException(
            "writer-fence: advisory-lock pool size "
                + poolSize
                + " is not allowed: at least 2 (the start-up self-check uses two connections)");
      }
      this.poolSize = poolSize;
      return this;
    }

    /**
     * @param keyScheme how a fence name becomes the text whose SHA-256 is its key: text with {@code
     *     {name}} at least once and no other placeholder ({@link AdvisoryKeys#checkKeyScheme});
     *     default {@value AdvisoryKeys#DEFAULT_KEY_SCHEME}. For example {@code vibey.fence:{name}}
     *     to lock what other writers lock as {@code sha256("vibey.fence:" + name)}. A call naming
     *     its own advisory key text does not use it
     * @return this builder
     * @throws IllegalArgumentException naming the value and what is allowed when it breaks the rule
     */
    public Builder keyScheme(String keyScheme) {
      this.keyScheme = AdvisoryKeys.checkKeyScheme(keyScheme);
      return this;
    }

    /**
     * @param schema the contract's schema, {@code writer_fence} by default; a plain lower-case SQL
     *     identifier
     * @return this builder
     * @throws IllegalArgumentException naming the value when it is not such an identifier
     */
    public Builder schema(String schema) {
      this.schema = FenceSchema.checkIdentifier("schema", schema);
      return this;
    }

    /**
     * @param timeout how long one statement may take; at least 1 s, rounded up to whole seconds
     *     ({@link PgLeaseStore#queryTimeoutSeconds(Duration)}); default 10 s
     * @return this builder
     * @throws IllegalArgumentException naming the value when it is under 1 second
     */
    public Builder queryTimeout(Duration timeout) {
      PgLeaseStore.queryTimeoutSeconds(timeout);
      this.queryTimeout = timeout;
      return this;
    }

    /**
     * @param timeout how long an acquire, status or self-check waits for a free connection of the
     *     pool before it is {@link WriterFenceUnavailableException}; zero or more; default 1 s. It
     *     does not bound the DataSource's own wait for a connection (configure that there)
     * @return this builder
     * @throws IllegalArgumentException naming the value when it is negative
     */
    public Builder borrowTimeout(Duration timeout) {
      if (timeout == null || timeout.isNegative()) {
        throw new IllegalArgumentException(
            "writer-fence: borrow timeout " + timeout + " is not allowed: zero or more");
      }
      this.borrowTimeout = timeout;
      return this;
    }

    /**
     * Builds the store and runs its start-up self-check (see {@link AdvisoryLockStore}).
     *
     * @return the started store
     * @throws IllegalStateException when two connections of the pool share a server session
     *     (transaction pooling): the message names it, and no store starts
     * @throws WriterFenceUnavailableException when the self-check cannot reach the database or get
     *     two connections
     */
    public AdvisoryLockStore build() {
      AdvisoryLockStore store = new AdvisoryLockStore(this);
      store.selfCheck();
      return store;
    }
  }
}
