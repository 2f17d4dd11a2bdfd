package dev.writerfence.testing;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.WriterFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * One test's fence on the embedded PostgreSQL ({@link EmbeddedDatabase}, contract installed): a
 * {@link WriterFence} whose fence names live under a random prefix of this test ({@link
 * PrefixedLeaseStore}), and the means to make it answer busy, lost or unavailable on demand, each
 * by the real mechanism: another holder, a takeover, a read-only or unreachable database. {@link
 * WriterFenceExtension} makes one per test; {@link #start()} makes one by hand.
 *
 * <p>The fence: holder label {@code test@host:pid}, TTL 30 s, renewal every 200 ms (a loss is seen
 * quickly), busy retried 3 times within about 150 ms, no JVM shutdown hook. Thread-safe.
 */
public final class TestFence implements AutoCloseable {
  /** The busy retry of a test fence: 3 attempts, 20 ms growing to at most 100 ms, no jitter. */
  public static final BusyRetryPolicy QUICK_RETRY =
      new BusyRetryPolicy(3, Duration.ofMillis(20), 2.0, Duration.ofMillis(100), 0.0);

  /** Sessions started with this option refuse every write (SQLState 25006). */
  private static final String READ_ONLY = "-c default_transaction_read_only=on";

  /** The embedded server's superuser, who owns the contract; no password. */
  private static final String USER = "postgres";

  private static final Duration RIVAL_TTL = Duration.ofSeconds(60);
  private static final Duration LOSS_SEEN_WITHIN = Duration.ofSeconds(10);

  private final EmbeddedDatabase db;
  private final PrefixedLeaseStore store;
  private final PgLeaseStore rivalStore;
  private final PGSimpleDataSource direct;
  private final SwitchableDataSource reachable;
  private final WriterFence fence;
  private final Set<FenceLease> held = ConcurrentHashMap.newKeySet();
  private final List<FenceLease> lost = new CopyOnWriteArrayList<>();
  private final Set<Rival> rivals = ConcurrentHashMap.newKeySet();

  private TestFence(EmbeddedDatabase db, String prefix) {
    this.db = db;
    // Unpooled: a switch to read-only or unreachable holds from the next statement on.
    this.direct = new PGSimpleDataSource();
    direct.setURL(db.jdbcUrl());
    direct.setUser(USER);
    direct.setConnectTimeout(5);
    direct.setSocketTimeout(15);
    this.reachable = new SwitchableDataSource(direct);
    Duration timeout = Duration.ofSeconds(5);
    this.store =
        new PrefixedLeaseStore(
            new PgLeaseStore(reachable, FenceSchema.DEFAULT_SCHEMA, timeout), prefix);
    // Rivals reach the database on their own path: an outage of the fence does not stop them.
    this.rivalStore = new PgLeaseStore(db.dataSource(), FenceSchema.DEFAULT_SCHEMA, timeout);
    this.fence =
        WriterFence.builder(store)
            .defaultHolderLabel("test")
            .retryPolicy(QUICK_RETRY)
            .renewInterval(Duration.ofMillis(200))
            .releaseOnJvmShutdown(false)
            .listener(new Tracker())
            .build();
  }

  /**
   * @return a test fence with a fresh random prefix on this JVM's embedded PostgreSQL, started on
   *     first use; close it when the test ends
   */
  public static TestFence start() {
    return new TestFence(
        EmbeddedDatabase.get(), "t" + UUID.randomUUID().toString().substring(0, 8) + ":");
  }

  /**
   * @return the fence to give the code under test; fence names as in production
   */
  public WriterFence fence() {
    return fence;
  }

  /**
   * @return this test's prefix of every fence name in the database, {@code t<8 hex digits>:}
   */
  public String prefix() {
    return store.prefix();
  }

  /**
   * @return the JDBC URL of the database this fence runs on, the embedded PostgreSQL ({@code
   *     jdbc:postgresql://127.0.0.1:<port>/postgres}), for an application's DataSource in the same
   *     test; the outages of {@link #readOnly()} and {@link #unreachable()} do not reach it
   */
  public String jdbcUrl() {
    return db.jdbcUrl();
  }

  /**
   * @return the user of {@link #jdbcUrl()}: {@code postgres}, the superuser, who needs no password
   */
  public String username() {
    return USER;
  }

  /**
   * @param fenceName a fence name as the code says it
   * @return the name of its row in the database, for {@code psql}, {@link ContractCalls} or a
   *     writer in another process
   */
  public String inDatabase(String fenceName) {
    return store.inDatabase(fenceName);
  }

  /**
   * Fails unless the current thread holds a valid lease of this fence on the name.
   *
   * @param fenceName the fence name as the code says it
   * @return the lease
   * @throws AssertionError naming the fence otherwise
   */
  public FenceLease assertFenced(String fenceName) {
    return FenceAssert.assertFenced(fence, fenceName);
  }

  /**
   * Makes the fence busy: another holder takes the lease (TTL 60 s) and keeps it until the returned
   * rival is closed. Fenced calls of the name then fail with {@code WriterFenceBusyException} after
   * their retries, and {@code tryAcquire} answers empty.
   *
   * @param fenceName the fence name as the code says it
   * @return the other holder; close it to free the fence
   * @throws IllegalStateException when the lease is held already (by this fence or another rival)
   */
  public Rival holdBusy(String fenceName) {
    String row = inDatabase(fenceName);
    StoreLease lease =
        rivalStore
            .acquire(row, UUID.randomUUID(), "rival", RIVAL_TTL)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "cannot make '" + fenceName + "' busy: its lease is held already"));
    Rival rival = new Rival(lease);
    rivals.add(rival);
    return rival;
  }

  /**
   * Makes this fence's lease on the name lost: the database owner ends the current lease (as an
   * operator's forced release does) and another holder takes the fence. Returns once every lease of
   * this fence on the name has been found lost by its renewal and reported ({@link #lost()} lists
   * it, {@link FenceLease#isValid()} is false, {@link FenceLease#checkValid()} throws), so code
   * that checks before its next write sees the loss. Works when the name is free too: then it only
   * makes it busy.
   *
   * @param fenceName the fence name as the code says it
   * @return the holder that took over; close it to free the fence
   * @throws IllegalStateException when a lease of this fence was not found lost within 10 s
   */
  public Rival takeOver(String fenceName) {
    List<FenceLease> victims = held.stream().filter(l -> l.fenceName().equals(fenceName)).toList();
    expireNow(inDatabase(fenceName));
    Rival rival = holdBusy(fenceName);
    long deadline = System.nanoTime() + LOSS_SEEN_WITHIN.toNanos();
    for (FenceLease lease : victims) {
      // Until the listener heard it: the lease turns invalid a moment before the fence tells.
      while (!lost.contains(lease) && held.contains(lease)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "the lease on '" + fenceName + "' was taken over but not found lost within 10 s");
        }
        sleep(Duration.ofMillis(10));
      }
    }
    return rival;
  }

  /**
   * Makes the database refuse this fence's writes: from now on its new sessions are read-only, so
   * acquire, renew and release fail with SQLState 25006 and fenced calls with {@code
   * WriterFenceUnavailableException} (the guarded code does not run) until the outage is closed. A
   * held lease is lost once its TTL passes unconfirmed.
   *
   * @return the outage; close it to end it
   */
  public Outage readOnly() {
    direct.setOptions(READ_ONLY);
    return () -> direct.setOptions(null);
  }

  /**
   * Makes the database unreachable for this fence: from now on its connections are refused (as by a
   * stopped server, SQLState 08001) until the outage is closed.
   *
   * @return the outage; close it to end it
   */
  public Outage unreachable() {
    reachable.cutOff();
    return reachable::restore;
  }

  /**
   * @return the leases of this fence that were lost, in the order the fence reported them
   */
  public List<FenceLease> lost() {
    return List.copyOf(lost);
  }

  /** Ends every outage, frees every rival's lease and closes the fence (its leases released). */
  @Override
  public void close() {
    direct.setOptions(null);
    reachable.restore();
    rivals.forEach(Rival::close);
    fence.close();
  }

  private void expireNow(String row) {
    try (Connection c = db.dataSource().getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE "
                    + FenceSchema.DEFAULT_SCHEMA
                    + ".lease SET expires_at = clock_timestamp()"
                    + " WHERE fence_name = ? AND holder_token IS NOT NULL")) {
      ps.setString(1, row);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot end the lease on " + row + ": " + e.getMessage(), e);
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a loss", e);
    }
  }

  /** An outage of the database for this fence, ended by {@link #close()}. */
  @FunctionalInterface
  public interface Outage extends AutoCloseable {
    /** Ends the outage: new connections work again. */
    @Override
    void close();
  }

  /** Another holder of a fence name, as another process would be. */
  public final class Rival implements AutoCloseable {
    private final StoreLease lease;

    private Rival(StoreLease lease) {
      this.lease = lease;
    }

    /**
     * @return the fencing token the rival was issued
     */
    public long fencingToken() {
      return lease.fencingToken();
    }

    /** Releases the rival's lease (nothing when it was released already). */
    @Override
    public void close() {
      if (rivals.remove(this)) {
        lease.release();
      }
    }
  }

  /** Follows this fence's leases, so a takeover can wait for the loss it causes. */
  private final class Tracker implements FenceListener {
    @Override
    public void acquired(FenceLease lease, int attempts, Duration waited) {
      held.add(lease);
    }

    @Override
    public void released(FenceLease lease, boolean freed) {
      held.remove(lease);
    }

    @Override
    public void lost(FenceLease lease, String reason) {
      lost.add(lease);
      held.remove(lease);
    }
  }

  @Override
  public String toString() {
    return "TestFence[" + prefix() + "]";
  }
}
