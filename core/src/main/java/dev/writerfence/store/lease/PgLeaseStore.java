package dev.writerfence.store.lease;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.ReleaseSignal;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.jdbc.Statements;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The default backend: one row per fence name in {@code <schema>.lease}, changed only through the
 * SQL contract's functions (V1__writer_fence.sql, and V2__waiter_queue.sql for the queue of waiters
 * in {@code <schema>.waiter}). No state lives in a database session, so it stays exact behind
 * PgBouncer in transaction mode or any other pool.
 *
 * <p>It {@linkplain #keepsQueue() keeps the queue}: {@link #acquireInTurn} is one call of {@code
 * acquire_turn}, and a release with tickets queued keeps the free lease for the head and sends
 * {@code NOTIFY writer_fence_release} (ADR 31); a poll with a head lapse passes a dead head over
 * (version 5, ADR 68).
 *
 * <p>TTLs are whole milliseconds from 1 ms to one day. A TTL of whole seconds goes to the functions
 * every contract version has ({@code acquire_lease}, {@code renew_lease}, {@code acquire_turn},
 * which take seconds), so a database still on contract version 3 or older keeps working; any other
 * TTL goes to version 4's millisecond forms ({@code acquire_lease_ms}, {@code renew_lease_ms},
 * {@code acquire_turn_ms}), and against an older contract it fails with {@link
 * WriterFenceUnavailableException} naming version 4 and how to upgrade (ADR 62).
 *
 * <p>Every call borrows a connection from the {@link DataSource}, runs one autocommit statement and
 * gives the connection back: nothing is pinned while a lease is held, and the lease is visible to
 * every other writer the moment {@link #acquire} returns. The DataSource must hand out connections
 * of its own, never one bound to the caller's open transaction.
 *
 * <p>Two stores are equal when they use the same DataSource object (identity, not {@code equals})
 * and the same schema. Stores on other DataSource objects (in any copy of core) that reach the same
 * database and schema {@linkplain #exclusionDomain() name} the same exclusion domain: they stand
 * for the same lease rows, so a fenced call nested in a hold of any of them re-enters it.
 */
public final class PgLeaseStore implements LeaseStore {
  /** The contract version whose functions take TTLs in milliseconds (V4__millisecond_ttls.sql). */
  public static final int MILLISECOND_TTLS_SINCE = 4;

  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;
  private final String acquireSql;
  private final String acquireMillisSql;
  private final String renewSql;
  private final String renewMillisSql;
  private final String releaseSql;
  private final String statusSql;
  private final String statusAllSql;
  private final String acquireTurnSql;
  private final String acquireTurnMillisSql;
  private final String enqueueSql;
  private final String leaveQueueSql;
  private final String queueSql;
  private final String statusAllClockedSql;
  private final String queueAllClockedSql;
  private final Statements statements;
  private final LeaseRowDomain domain;
  private final HeadLapseQueue headLapses;

  /**
   * @param dataSource where connections come from; never {@code null}
   * @param schema the contract's schema, a plain lower-case SQL identifier
   * @param queryTimeout how long one statement may take before the store reports the database
   *     unavailable (JDBC's {@code Statement.setQueryTimeout}); at least 1 second, and a fraction
   *     of a second is rounded up to the next whole second, as {@link #queryTimeoutSeconds} does
   * @throws IllegalArgumentException when the schema name or timeout breaks its rule
   */
  public PgLeaseStore(DataSource dataSource, String schema, Duration queryTimeout) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = FenceSchema.checkIdentifier("schema", schema);
    this.queryTimeoutSeconds = queryTimeoutSeconds(queryTimeout);
    String lease = "SELECT fencing_token, acquired_at, expires_at FROM " + schema;
    this.acquireSql = lease + ".acquire_lease(?, ?, ?, ?)";
    this.acquireMillisSql = lease + ".acquire_lease_ms(?, ?, ?, ?)";
    this.renewSql = "SELECT " + schema + ".renew_lease(?, ?, ?)";
    this.renewMillisSql = "SELECT " + schema + ".renew_lease_ms(?, ?, ?)";
    this.releaseSql = "SELECT " + schema + ".release(?, ?)";
    String columns =
        "SELECT fence_name, holder_label, fencing_token, acquired_at, expires_at, seconds_left,"
            + " state FROM "
            + schema
            + ".lease_status";
    this.statusSql = columns + " WHERE fence_name = ?";
    this.statusAllSql = columns + " ORDER BY fence_name";
    String turn = "SELECT fencing_token, acquired_at, expires_at, place, waiters FROM " + schema;
    this.acquireTurnSql = turn + ".acquire_turn(?, ?, ?, ?, ?, ?, ?)";
    this.acquireTurnMillisSql = turn + ".acquire_turn_ms(?, ?, ?, ?, ?, ?, ?)";
    this.enqueueSql = "SELECT place, waiters FROM " + schema + ".enqueue(?, ?, ?, ?, ?)";
    this.leaveQueueSql = "SELECT " + schema + ".leave_queue(?, ?)";
    this.queueSql =
        "SELECT fence_name, holder_label, priority, waiting_since, refreshed_at, lapses_at, place,"
            + " reserved FROM "
            + schema
            + ".queue_status WHERE fence_name = ? ORDER BY place NULLS LAST, waiting_since";
    // The database clock in the same statement: an operator's ages are measured against it.
    this.statusAllClockedSql =
        "SELECT s.fence_name, s.holder_label, s.fencing_token, s.acquired_at, s.expires_at,"
            + " s.seconds_left, s.state, t.now FROM (SELECT pg_catalog.clock_timestamp() AS now) t"
            + " LEFT JOIN "
            + schema
            + ".lease_status s ON true ORDER BY s.fence_name";
    this.queueAllClockedSql =
        "SELECT q.fence_name, q.holder_label, q.priority, q.waiting_since, q.refreshed_at,"
            + " q.lapses_at, q.place, q.reserved, t.now"
            + " FROM (SELECT pg_catalog.clock_timestamp() AS now) t LEFT JOIN "
            + schema
            + ".queue_status q ON true ORDER BY q.fence_name, q.place NULLS LAST, q.waiting_since";
    this.statements = new Statements(dataSource, this.schema, queryTimeoutSeconds);
    this.domain = new LeaseRowDomain(statements, schema);
    this.headLapses = new HeadLapseQueue(statements, this.schema);
  }

  /**
   * The query timeout in the whole seconds JDBC takes: at least 1 second, a fraction rounded up
   * (1.2 s is 2 s), at most {@link Integer#MAX_VALUE} seconds.
   *
   * @param queryTimeout the timeout
   * @return it in whole seconds, rounded up
   * @throws IllegalArgumentException naming the value when it is {@code null} or under 1 second
   */
  public static int queryTimeoutSeconds(Duration queryTimeout) {
    if (queryTimeout == null || queryTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(
          "writer-fence: query timeout " + queryTimeout + " is not allowed: at least 1 second");
    }
    long seconds = queryTimeout.getSeconds() + (queryTimeout.getNano() > 0 ? 1 : 0);
    return (int) Math.min(Integer.MAX_VALUE, seconds);
  }

  /**
   * @return the query timeout in whole seconds, as applied to every statement
   */
  public int queryTimeoutSeconds() {
    return queryTimeoutSeconds;
  }

  /**
   * @return the schema this store uses
   */
  public String schema() {
    return schema;
  }

  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    // The check comes first and the row is read by a method that captures nothing: between the
    // check and the statement no code of this class runs, so the call goes into FenceArguments,
    // into Statements, and back here once. A TTL of whole seconds (every fence's) takes the
    // functions every contract version has; any other the _ms form of version 4.
    long ttlMillis = FenceArguments.ttlMillis(ttl);
    Granted granted =
        ttlMillis % 1000 == 0
            ? statements.call(
                fenceName,
                acquireSql,
                PgLeaseStore::granted,
                fenceName,
                holderToken,
                Statements.text(holderLabel),
                (int) (ttlMillis / 1000))
            : callInMillis(
                ttl,
                fenceName,
                acquireMillisSql,
                PgLeaseStore::granted,
                fenceName,
                holderToken,
                Statements.text(holderLabel),
                ttlMillis);
    return granted == null
        ? Optional.empty()
        : Optional.of(new Lease(this, fenceName, holderToken, granted));
  }

  /**
   * Runs one statement on a millisecond function of contract version 4 as {@link Statements#call}
   * runs any: a function the database does not know (SQLState 42883) is a contract older than
   * version 4, and the failure says so and how to upgrade. Whole seconds never come here, so a
   * database on an older contract keeps serving them.
   */
  private <T> T callInMillis(
      Duration millisTtl,
      String fenceName,
      String sql,
      Statements.Answer<T> answer,
      Object... values) {
    try {
      return statements.query(sql, answer, values);
    } catch (SQLException e) {
      if (!"42883".equals(e.getSQLState())) {
        throw SqlErrors.classify(fenceName, schema, e);
      }
      throw new WriterFenceUnavailableException(
          fenceName,
          "writer-fence: fence '"
              + fenceName
              + "': a TTL of "
              + millisTtl
              + " (not whole seconds) needs SQL contract version "
              + MILLISECOND_TTLS_SINCE
              + " (its functions acquire_lease_ms, renew_lease_ms, acquire_turn_ms), and schema '"
              + schema
              + "' holds an older version (SQLState 42883). Upgrade it in place, keeping every"
              + " lease: FenceSchema.install(...), './writer-fence schema install --jdbc-url URL',"
              + " or your Flyway or Liquibase run of the contract's V4 migration. TTLs of whole"
              + " seconds work on every version",
          e);
    }
  }

  /** The fencing token and times of a granted lease, as its statement answered them. */
  private record Granted(long fencingToken, Instant acquiredAt, Instant expiresAt) {}

  /** Reads {@code acquire_lease}'s answer: no row when busy. */
  private static Granted granted(ResultSet rs) throws SQLException {
    return rs.next() ? new Granted(rs.getLong(1), instant(rs, 2), instant(rs, 3)) : null;
  }

  /**
   * {@inheritDoc}
   *
   * <p>On the lease row: one listener per data source in this process, which holds one connection
   * of it with {@code LISTEN writer_fence_release} while writers of this process wait (and a few
   * seconds after). Its first listening sends a probe notification and waits for it: behind a
   * transaction pooler, where LISTEN's notifications do not arrive, it falls back to polling
   * ({@link ReleaseSignal.Mode#POLLED}).
   */
  @Override
  public Optional<ReleaseSignal> openReleaseSignal() {
    return Optional.of(ReleaseListener.open(dataSource, null));
  }

  /**
   * As {@link #openReleaseSignal()}, one listener per direct URL and role in this process; the
   * probe still goes through this store's data source, the path a release's notification takes.
   */
  @Override
  public Optional<ReleaseSignal> openReleaseSignal(ReleaseSignal.Direct direct) {
    return Optional.of(ReleaseListener.open(dataSource, Objects.requireNonNull(direct, "direct")));
  }

  @Override
  public boolean keepsQueue() {
    return true;
  }

  /** One call of {@code acquire_turn}: refreshes the ticket and, in its turn, tries the lease. */
  @Override
  public Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl) {
    // The ticket is read and the values checked before the statement, and the row read by a
    // method that captures nothing: each class is entered once on the way (see acquire).
    String fenceName = ticket.fenceName();
    String holderLabel = ticket.holderLabel();
    UUID waiterToken = ticket.waiterToken();
    int priority = ticket.priority();
    Duration lapse = ticket.lapse();
    long ttlMillis = FenceArguments.ttlMillis(ttl);
    int lapseSeconds = FenceArguments.lapseSeconds(lapse);
    InTurn turn =
        ttlMillis % 1000 == 0
            ? statements.call(
                fenceName,
                acquireTurnSql,
                PgLeaseStore::inTurn,
                fenceName,
                holderToken,
                Statements.text(holderLabel),
                (int) (ttlMillis / 1000),
                waiterToken,
                priority,
                lapseSeconds)
            : callInMillis(
                ttl,
                fenceName,
                acquireTurnMillisSql,
                PgLeaseStore::inTurn,
                fenceName,
                holderToken,
                Statements.text(holderLabel),
                ttlMillis,
                waiterToken,
                priority,
                lapseSeconds);
    return turn(fenceName, holderToken, turn);
  }

  private Turn turn(String fenceName, UUID holderToken, InTurn turn) {
    return turn.granted == null
        ? new Turn(Optional.empty(), turn.place, turn.waiters)
        : Turn.granted(new Lease(this, fenceName, holderToken, turn.granted), turn.waiters);
  }

  /**
   * One call of version 5's {@code acquire_turn_ms} with the head lapse ({@link HeadLapseQueue}).
   */
  @Override
  public Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl, Duration headLapse) {
    String fenceName = ticket.fenceName();
    long ttlMillis = FenceArguments.ttlMillis(ttl);
    int headLapseMillis = FenceArguments.headLapseMillis(headLapse);
    InTurn turn = // null: an older contract
        headLapses.poll(
            fenceName,
            PgLeaseStore::inTurn,
            fenceName,
            holderToken,
            Statements.text(ticket.holderLabel()),
            ttlMillis,
            ticket.waiterToken(),
            ticket.priority(),
            FenceArguments.lapseSeconds(ticket.lapse()),
            headLapseMillis);
    return turn == null
        ? acquireInTurn(ticket, holderToken, ttl)
        : turn(fenceName, holderToken, turn);
  }

  /** {@code acquire_turn}'s answer: the lease when granted ({@code null} when not), the queue. */
  private record InTurn(Granted granted, int place, int waiters) {}

  private static InTurn inTurn(ResultSet rs) throws SQLException {
    rs.next();
    long fencingToken = rs.getLong(1);
    if (rs.wasNull()) {
      return new InTurn(null, rs.getInt(4), rs.getInt(5));
    }
    return new InTurn(
        new Granted(fencingToken, instant(rs, 2), instant(rs, 3)), rs.getInt(4), rs.getInt(5));
  }

  /** One call of {@code enqueue}. */
  @Override
  public Turn enqueue(Ticket ticket) {
    int lapseSeconds = FenceArguments.lapseSeconds(ticket.lapse());
    return statements.call(
        ticket.fenceName(),
        enqueueSql,
        rs -> {
          rs.next();
          return new Turn(Optional.empty(), rs.getInt(1), rs.getInt(2));
        },
        ticket.fenceName(),
        ticket.waiterToken(),
        Statements.text(ticket.holderLabel()),
        ticket.priority(),
        lapseSeconds);
  }

  /** One call of {@code leave_queue}. */
  @Override
  public boolean leaveQueue(String fenceName, UUID waiterToken) {
    return statements.call(
        fenceName, leaveQueueSql, PgLeaseStore::firstBoolean, fenceName, waiterToken);
  }

  /** The fence's rows of {@code queue_status}: live tickets head first, then lapsed ones. */
  @Override
  public List<QueuedWaiter> queue(String fenceName) {
    return statements.call(
        fenceName,
        queueSql,
        rs -> {
          List<QueuedWaiter> rows = new ArrayList<>();
          while (rs.next()) {
            rows.add(waiter(rs));
          }
          return rows;
        },
        fenceName);
  }

  /**
   * Calls {@code renew_lease} ({@code renew_lease_ms} for a TTL that is not whole seconds): the
   * expiry of a live lease of this holder token becomes now + {@code ttl} on the database clock,
   * which shortens the lease when {@code ttl} is less than the time left.
   *
   * @param ttl whole milliseconds from 1 ms to one day
   * @return the new expiry, or empty when the lease is expired, taken over or released
   */
  private Optional<Instant> renew(String fenceName, UUID holderToken, Duration ttl) {
    long ttlMillis = FenceArguments.ttlMillis(ttl);
    return ttlMillis % 1000 == 0
        ? statements.call(
            fenceName,
            renewSql,
            PgLeaseStore::expiry,
            fenceName,
            holderToken,
            (int) (ttlMillis / 1000))
        : callInMillis(
            ttl,
            fenceName,
            renewMillisSql,
            PgLeaseStore::expiry,
            fenceName,
            holderToken,
            ttlMillis);
  }

  private static Optional<Instant> expiry(ResultSet rs) throws SQLException {
    rs.next();
    return Optional.ofNullable(instant(rs, 1));
  }

  /** Calls {@code release}: frees the row only while it carries this holder token. */
  private boolean release(String fenceName, UUID holderToken) {
    return statements.call(
        fenceName, releaseSql, PgLeaseStore::firstBoolean, fenceName, holderToken);
  }

  /** A lease row this store granted: renewed and released by its fence name and holder token. */
  private record Lease(
      PgLeaseStore store,
      String fenceName,
      UUID holderToken,
      long fencingToken,
      Instant acquiredAt,
      Instant expiresAt)
      implements StoreLease {
    Lease(PgLeaseStore store, String fenceName, UUID holderToken, Granted granted) {
      this(
          store,
          fenceName,
          holderToken,
          granted.fencingToken,
          granted.acquiredAt,
          granted.expiresAt);
    }

    @Override
    public Optional<Instant> renew(Duration ttl) {
      return store.renew(fenceName, holderToken, ttl);
    }

    @Override
    public boolean release() {
      return store.release(fenceName, holderToken);
    }
  }

  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    return statements.call(
        fenceName,
        statusSql,
        rs -> rs.next() ? Optional.of(status(rs)) : Optional.empty(),
        fenceName);
  }

  @Override
  public List<LeaseStatus> statusAll() {
    return statements.call(
        "*",
        statusAllSql,
        rs -> {
          List<LeaseStatus> rows = new ArrayList<>();
          while (rs.next()) {
            rows.add(status(rs));
          }
          return rows;
        });
  }

  /**
   * Every row of {@code lease_status}, as {@link #statusAll} lists them, with the database clock of
   * the statement that read them: what an operator's view measures each lease's age against.
   *
   * @return the rows by fence name (none when no fence was ever acquired), and the database's
   *     {@code clock_timestamp()} of that statement; never {@code null}
   * @throws dev.writerfence.WriterFenceUnavailableException when the database cannot answer, or the
   *     view or its schema does not exist (SQLState 42P01 or 3F000 in the cause)
   */
  public Clocked<List<LeaseStatus>> statusAllClocked() {
    return statements.call(
        "*", statusAllClockedSql, rs -> clockedRows(rs, 8, PgLeaseStore::status));
  }

  /**
   * Every fence's rows of {@code queue_status}: by fence name, then as {@link #queue} orders them
   * (live tickets head first, then lapsed ones), with the database clock of the statement that read
   * them.
   *
   * @return the rows and the database's {@code clock_timestamp()} of that statement; empty when the
   *     schema has no queue view (contract version 1, SQLState 42P01)
   * @throws dev.writerfence.WriterFenceUnavailableException when the database cannot answer
   */
  public Optional<Clocked<List<QueuedWaiter>>> queueAllClocked() {
    try {
      return Optional.of(
          statements.query(queueAllClockedSql, rs -> clockedRows(rs, 9, PgLeaseStore::waiter)));
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return Optional.empty();
      }
      throw SqlErrors.classify("*", schema, e);
    }
  }

  /**
   * Reads a view's rows left-joined to the database clock: one row with a {@code null} first column
   * when the view is empty, so the clock is read all the same.
   */
  private static <T> Clocked<List<T>> clockedRows(
      ResultSet rs, int clockColumn, Statements.Answer<T> row) throws SQLException {
    List<T> rows = new ArrayList<>();
    Instant now = null;
    while (rs.next()) {
      now = instant(rs, clockColumn);
      if (rs.getString(1) != null) {
        rows.add(row.read(rs));
      }
    }
    return new Clocked<>(List.copyOf(rows), now);
  }

  private static boolean firstBoolean(ResultSet rs) throws SQLException {
    rs.next();
    return rs.getBoolean(1);
  }

  private static QueuedWaiter waiter(ResultSet rs) throws SQLException {
    return new QueuedWaiter(
        rs.getString(1),
        rs.getString(2),
        rs.getInt(3),
        instant(rs, 4),
        instant(rs, 5),
        instant(rs, 6),
        rs.getInt(7),
        rs.getBoolean(8));
  }

  private static LeaseStatus status(ResultSet rs) throws SQLException {
    return new LeaseStatus(
        rs.getString(1),
        rs.getString(2),
        rs.getLong(3),
        instant(rs, 4),
        instant(rs, 5),
        rs.getBigDecimal(6),
        rs.getString(7));
  }

  private static Instant instant(ResultSet rs, int column) throws SQLException {
    OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
    return t == null ? null : t.toInstant();
  }

  /**
   * @return {@code lease-row <system identifier>/<database>/<schema>}, asked of the database once;
   *     empty when the database could not answer (then only holds of an equal store are joined)
   */
  @Override
  public Optional<String> exclusionDomain() {
    return domain.name();
  }

  /**
   * @param other another object
   * @return {@code true} when {@code other} is a {@code PgLeaseStore} on the same DataSource object
   *     and schema (the query timeout plays no part)
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof PgLeaseStore that
        && dataSource == that.dataSource
        && schema.equals(that.schema);
  }

  @Override
  public int hashCode() {
    return 31 * System.identityHashCode(dataSource) + schema.hashCode();
  }

  @Override
  public String toString() {
    return "PgLeaseStore[schema=" + schema + "]";
  }
}
