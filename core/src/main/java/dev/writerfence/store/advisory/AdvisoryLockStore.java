package dev.writerfence.store.advisory;

import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import dev.writerfence.store.advisory.AdvisoryPin.Grant;
import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.jdbc.Statements;
import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
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
import javax.sql.DataSource;

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
 *       -9}, a dropped connection). The {@code ttl} passed to {@link #acquire} and to a lease's
 *       {@code renew} is not sent to the server: it only sets the lease's {@link
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
  /** Connections used at most at once when none is configured: 4. */
  public static final int DEFAULT_POOL_SIZE = 4;

  /** How long a borrow waits for a free connection of the pool when none is configured: 1 s. */
  public static final Duration DEFAULT_BORROW_TIMEOUT = Duration.ofSeconds(1);

  /** Query timeout when none is configured: 10 s. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(10);

  /** Granted advisory locks on 64-bit keys in this database: pid, key halves. */
  private static final String LOCKS_SQL =
      "SELECT l.pid, l.classid::bigint, l.objid::bigint FROM pg_catalog.pg_locks l"
          + " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
          + " AND l.database = (SELECT d.oid FROM pg_catalog.pg_database d"
          + " WHERE d.datname = pg_catalog.current_database())";

  private final DataSource dataSource;
  private final String schema;
  private final int poolSize;
  private final AdvisoryPool pool;
  private final Statements statements;
  private final String acquireSql;
  private final String keyScheme;
  private final boolean defaultScheme;
  private final ConcurrentMap<UUID, AdvisoryPin> pins = new ConcurrentHashMap<>();

  private AdvisoryLockStore(Builder b) {
    this.dataSource = b.dataSource;
    this.schema = b.schema;
    this.poolSize = b.poolSize;
    this.pool =
        new AdvisoryPool(
            b.dataSource,
            b.schema,
            b.poolSize,
            b.borrowTimeout,
            PgLeaseStore.queryTimeoutSeconds(b.queryTimeout));
    this.statements = pool.statements();
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
   * @param ttl whole milliseconds from 1 ms to one day, kept to the millisecond; not sent to the
   *     server (no TTL there): the lease's {@code expiresAt} is the acquire's database time +
   *     {@code ttl}
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
   * @param ttl whole milliseconds from 1 ms to one day
   * @return the lease, or empty when another session holds the lock (busy)
   * @throws WriterFenceUnavailableException as {@link #acquire(String, UUID, String, Duration)}
   * @throws IllegalArgumentException when {@code ttl} or the key text breaks its rule, or the
   *     holder token already holds another fence or key in this store
   */
  @Override
  public Optional<StoreLease> acquire(
      String fenceName, String advisoryKey, UUID holderToken, String holderLabel, Duration ttl) {
    FenceArguments.ttlMillis(ttl);
    long key = keyOf(fenceName, advisoryKey);
    AdvisoryPin existing = pins.get(holderToken);
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
    Connection connection = pool.borrow(fenceName);
    boolean pinned = false;
    boolean mayHoldLock = false;
    try (PreparedStatement ps = statements.prepare(connection, acquireSql)) {
      ps.setLong(1, key);
      mayHoldLock = true;
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          mayHoldLock = false;
          return Optional.empty();
        }
        long token = rs.getLong(2);
        Instant now = AdvisoryPin.instant(rs, 3);
        Grant lease = new Grant(fenceName, holderToken, holderLabel, token, now, now.plus(ttl));
        AdvisoryPin pin = new AdvisoryPin(pool, pins, connection, key, rs.getInt(4), lease);
        pins.put(holderToken, pin);
        pinned = true;
        return Optional.of(pin);
      }
    } catch (SQLException e) {
      // A session lock outlives the failed statement's transaction: the lock may have been won.
      throw SqlErrors.classify(fenceName, schema, e);
    } finally {
      if (!pinned) {
        pool.giveBack(connection, mayHoldLock);
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
   * @param ttl whole milliseconds from 1 ms to one day
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
    for (AdvisoryPin pin : pins.values()) {
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
    for (AdvisoryPin pin : pins.values()) {
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
    for (AdvisoryPin pin : pins.values()) {
      if (locks.getOrDefault(pin.key, List.of()).contains(pin.backendPid)) {
        rows.add(held(pin.lease));
      }
    }
    rows.sort(Comparator.comparing(LeaseStatus::fenceName));
    return rows;
  }

  /**
   * Ends every hold of this store by closing its pinned connections (the server frees their locks)
   * and refuses further acquires. Their leases are lost: their {@code renew} answers empty and
   * their {@code release} {@code false}. Does not close the DataSource.
   */
  @Override
  public void close() {
    pool.close();
    for (AdvisoryPin pin : pins.values()) {
      pin.endByClosing();
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
    Connection connection = pool.borrow(fenceName);
    try {
      return statements.query(
          connection,
          LOCKS_SQL,
          rs -> {
            Map<Long, List<Integer>> locks = new HashMap<>();
            while (rs.next()) {
              long key = (rs.getLong(2) << 32) | rs.getLong(3);
              locks.computeIfAbsent(key, k -> new ArrayList<>()).add(rs.getInt(1));
            }
            return locks;
          });
    } catch (SQLException e) {
      throw SqlErrors.classify(fenceName, schema, e);
    } finally {
      pool.giveBack(connection, false);
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
      AdvisorySelfCheck.run(store.pool);
      return store;
    }
  }
}
