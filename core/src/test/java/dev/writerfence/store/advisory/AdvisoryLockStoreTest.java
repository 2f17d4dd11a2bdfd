package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.advisoryLocks;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.holdersOf;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.lastToken;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.LogCapture;
import dev.writerfence.testing.Pools;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * The advisory-lock backend on a real PostgreSQL: cases C18 and C19, the bounded pool, fencing
 * tokens from the sequence, nested holds, a dead pinned connection, and the start-up self-check.
 */
class AdvisoryLockStoreTest {
  private static final String SCHEMA = FenceSchema.DEFAULT_SCHEMA;
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final BusyRetryPolicy QUICK_RETRY =
      new BusyRetryPolicy(3, Duration.ofMillis(20), 1.0, Duration.ofMillis(20), 0.0);

  private String name;

  @BeforeEach
  void freshFenceName(TestInfo test) {
    name = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("advisory"));
  }

  private static WriterFence fence(AdvisoryLockStore store) {
    return WriterFence.builder(store).retryPolicy(QUICK_RETRY).defaultTtl(TTL).build();
  }

  private static FenceRequest request(String fenceName, String label) {
    return FenceRequest.builder(fenceName).holderLabel(label).build();
  }

  @Test
  void C18_advisoryHolderMakesTheOtherThreadBusyAndUnlockLeavesNoLock() throws Exception {
    String bucket = "bucket-a";
    long key = AdvisoryKeys.keyOf(bucket);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 2);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 2, SCHEMA)) {
      WriterFence fence = fence(store);
      CountDownLatch holding = new CountDownLatch(1);
      CountDownLatch letGo = new CountDownLatch(1);
      Future<Long> thread1 =
          threads.submit(
              () ->
                  fence.call(
                      request(bucket, "thread-1"),
                      () -> {
                        holding.countDown();
                        assertThat(letGo.await(20, TimeUnit.SECONDS)).isTrue();
                        return WriterFence.current(bucket).orElseThrow().fencingToken();
                      }));
      assertThat(holding.await(20, TimeUnit.SECONDS)).isTrue();
      assertThat(holdersOf(key)).as("sessions holding the key").isEqualTo(1);

      AtomicInteger ran = new AtomicInteger();
      Throwable thread2 =
          threads
              .submit(() -> catchThrowable(() -> fence.call(request(bucket, "thread-2"), ran::get)))
              .get(20, TimeUnit.SECONDS);

      assertThat(thread2)
          .isInstanceOfSatisfying(
              WriterFenceBusyException.class,
              busy ->
                  assertThat(busy.holderLabel()).hasValue("thread-1@" + HolderLabel.instance()));
      assertThat(ran).hasValue(0);
      letGo.countDown();
      assertThat(thread1.get(20, TimeUnit.SECONDS)).isPositive();
      assertThat(holdersOf(key)).as("pg_locks after the release").isZero();
      assertThat(fence.status(bucket)).isEmpty();
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void C19_unlockThatReturnsFalseIsRaisedNotIgnored() throws Exception {
    long key = AdvisoryKeys.keyOf(name);
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 2);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 2, SCHEMA)) {
      WriterFence fence = fence(store);
      FenceLease lease =
          fence
              .tryAcquire(FenceRequest.builder(name).holderLabel("c19").ttl(TTL).build())
              .orElseThrow();
      unlockBehindTheStore(store, lease, key); // the lock vanishes under its holder

      Throwable raised;
      String logged;
      try (LogCapture log = LogCapture.start()) {
        raised = catchThrowable(() -> fence.release(lease));
        logged = log.text();
      }

      assertThat(raised)
          .isInstanceOf(AdvisoryUnlockException.class)
          .hasMessageContaining("fence '" + name + "'")
          .hasMessageContaining("pg_advisory_unlock(" + key + ") answered false");
      assertThat(((AdvisoryUnlockException) raised).key()).isEqualTo(key);
      assertThat(logged).contains("ERROR").contains("answered false");
      assertThat(lease.isValid()).isFalse();

      // Inside a fenced call the same failure is logged as an error too; the call's result stands.
      String result;
      try (LogCapture log = LogCapture.start()) {
        result =
            fence.call(
                request(name, "c19-call"),
                () -> {
                  unlockBehindTheStore(store, WriterFence.current(name).orElseThrow(), key);
                  return "written";
                });
        logged = log.text();
      }
      assertThat(result).isEqualTo("written");
      assertThat(logged).contains("ERROR").contains("answered false");

      // Both connections went back to the pool: two holds at once still fit.
      StoreLease a = store.acquire(name, UUID.randomUUID(), "a", TTL).orElseThrow();
      StoreLease b = store.acquire(name + "/b", UUID.randomUUID(), "b", TTL).orElseThrow();
      assertThat(a.release()).isTrue();
      assertThat(b.release()).isTrue();
    }
  }

  @Test
  void unlockFalseInsideAFencedCallReachesListenersAsAReleaseThatFreedNothing() throws Exception {
    long key = AdvisoryKeys.keyOf(name);
    List<Boolean> released = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 2);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 2, SCHEMA)) {
      WriterFence fence =
          WriterFence.builder(store)
              .retryPolicy(QUICK_RETRY)
              .defaultTtl(TTL)
              .listener(
                  new dev.writerfence.FenceListener() {
                    @Override
                    public void released(FenceLease lease, boolean freed) {
                      released.add(freed);
                    }
                  })
              .build();
      String logged;
      try (LogCapture log = LogCapture.start()) {
        fence.run(
            request(name, "c19-listener"),
            () -> {
              try {
                unlockBehindTheStore(store, WriterFence.current(name).orElseThrow(), key);
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
        logged = log.text();
      }
      assertThat(released).as("metrics see a release that freed nothing").containsExactly(false);
      assertThat(logged)
          .contains("the store refused the release")
          .doesNotContain("frees itself at its expiry");
    }
  }

  private static void unlockBehindTheStore(AdvisoryLockStore store, FenceLease lease, long key)
      throws SQLException {
    Connection pinned = store.pinnedConnection(lease.holderToken()).orElseThrow();
    try (PreparedStatement ps = pinned.prepareStatement("SELECT pg_advisory_unlock(?)")) {
      ps.setLong(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        assertThat(rs.getBoolean(1)).as("the pinned session held the lock").isTrue();
      }
    }
    assertThat(holdersOf(key)).isZero();
  }

  @Test
  void exhaustedPoolIsAClearUnavailableErrorAtOnceNeverAHang() throws Exception {
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 2);
        AdvisoryLockStore store =
            AdvisoryLockStore.builder(pool)
                .poolSize(2)
                .borrowTimeout(Duration.ofMillis(200))
                .build()) {
      StoreLease a = store.acquire(name + "/a", UUID.randomUUID(), "a", TTL).orElseThrow();
      StoreLease b = store.acquire(name + "/b", UUID.randomUUID(), "b", TTL).orElseThrow();
      AtomicInteger ran = new AtomicInteger();

      WriterFenceUnavailableException exhausted =
          assertTimeoutPreemptively(
              Duration.ofSeconds(3),
              () ->
                  catchThrowableOfType(
                      WriterFenceUnavailableException.class,
                      () -> fence(store).call(request(name + "/c", "c"), ran::incrementAndGet)));

      assertThat(exhausted)
          .hasMessageContaining("pool of 2 connections is exhausted")
          .hasMessageContaining("poolSize");
      assertThat(exhausted.fenceName()).isEqualTo(name + "/c");
      assertThat(ran).hasValue(0);
      assertThat(a.release()).isTrue();
      StoreLease c = store.acquire(name + "/c", UUID.randomUUID(), "c", TTL).orElseThrow();
      assertThat(b.release()).isTrue();
      assertThat(c.release()).isTrue();
    }
  }

  @Test
  void fencingTokensIncreaseAndAreTakenOnlyWhenTheLockIsWon() throws Exception {
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 3);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 3, SCHEMA)) {
      StoreLease first = store.acquire(name, UUID.randomUUID(), "first", TTL).orElseThrow();
      long issued = lastToken();
      assertThat(first.fencingToken()).isEqualTo(issued);

      for (int i = 0; i < 5; i++) {
        assertThat(store.acquire(name, UUID.randomUUID(), "busy", TTL)).isEmpty();
      }
      assertThat(lastToken()).as("busy attempts take no token").isEqualTo(issued);

      assertThat(first.release()).isTrue();
      StoreLease second = store.acquire(name, UUID.randomUUID(), "second", TTL).orElseThrow();
      assertThat(second.fencingToken()).isEqualTo(first.fencingToken() + 1);
      assertThat(second.release()).isTrue();
    }
  }

  @Test
  void nestedHoldsOfTheSameFenceReenterAndAnEqualStoreIsTheSameDomain() throws Exception {
    long key = AdvisoryKeys.keyOf(name);
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 2);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 2, SCHEMA);
        AdvisoryLockStore same = AdvisoryLockStore.create(pool, 3, SCHEMA)) {
      assertThat(same).isEqualTo(store).hasSameHashCodeAs(store);
      WriterFence outer = fence(store);
      WriterFence inner = fence(same);

      long[] tokens =
          outer.call(
              request(name, "outer"),
              () -> {
                long outerToken = WriterFence.current(name).orElseThrow().fencingToken();
                return outer.call(
                    request(name, "nested"),
                    () ->
                        inner.call(
                            request(name, "inner"),
                            () -> {
                              assertThat(holdersOf(key)).isEqualTo(1);
                              return new long[] {
                                outerToken, WriterFence.current(name).orElseThrow().fencingToken()
                              };
                            }));
              });

      assertThat(tokens[1]).as("no second acquire").isEqualTo(tokens[0]);
      assertThat(holdersOf(key)).isZero();
    }
  }

  @Test
  void storesAreEqualOnDataSourceIdentityAndSchemaAndNeverEqualToTheLeaseBackend() {
    DataSource one = DB.dataSource();
    DataSource other = DB.dataSource();
    try (AdvisoryLockStore a = AdvisoryLockStore.create(one, 2, SCHEMA);
        AdvisoryLockStore b = AdvisoryLockStore.create(other, 2, SCHEMA)) {
      assertThat(a).isNotEqualTo(b);
      assertThat(a).isNotEqualTo(new PgLeaseStore(one, SCHEMA, Duration.ofSeconds(10)));
      assertThat(new PgLeaseStore(one, SCHEMA, Duration.ofSeconds(10))).isNotEqualTo(a);
    }
  }

  @Test
  void aDeadPinnedConnectionIsLostAndTheServerFreesTheLock() throws Exception {
    long key = AdvisoryKeys.keyOf(name);
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 2);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 2, SCHEMA)) {
      UUID token = UUID.randomUUID();
      StoreLease lease = store.acquire(name, token, "doomed", TTL).orElseThrow();
      int pid;
      try (PreparedStatement ps =
              store
                  .pinnedConnection(token)
                  .orElseThrow()
                  .prepareStatement("SELECT pg_backend_pid()");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        pid = rs.getInt(1);
      }

      // Waits (up to 5 s) until the server process has ended.
      assertThat(DB.queryValue(Boolean.class, "SELECT pg_terminate_backend(?, 5000)", pid))
          .isTrue();

      assertThat(holdersOf(key)).as("the server freed the lock with the session").isZero();
      assertThat(lease.renew(TTL)).as("lost").isEmpty();
      assertThat(lease.release()).isFalse();
      StoreLease a = store.acquire(name, UUID.randomUUID(), "a", TTL).orElseThrow();
      StoreLease b = store.acquire(name + "/b", UUID.randomUUID(), "b", TTL).orElseThrow();
      assertThat(a.release()).isTrue();
      assertThat(b.release()).isTrue();
    }
  }

  @Test
  void selfCheckPassesOnADirectConnectionAndLeavesNoLock() {
    long before = advisoryLocks();
    try (AdvisoryLockStore store = AdvisoryLockStore.create(DB.dataSource(), 2, SCHEMA)) {
      assertThat(advisoryLocks()).isEqualTo(before);
      assertThat(store.poolSize()).isEqualTo(2);
    }
    assertThatThrownBy(() -> AdvisoryLockStore.create(DB.dataSource(), 1, SCHEMA))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 2");
  }

  @Test
  void selfCheckRefusesConnectionsThatShareOneServerSession() throws Exception {
    long before = advisoryLocks();
    try (Connection session = DB.dataSource().getConnection()) {
      DataSource multiplexed = sharing(session);

      assertThatThrownBy(() -> AdvisoryLockStore.create(multiplexed, 2, SCHEMA))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("refuses to start")
          .hasMessageContaining("both won advisory lock")
          .hasMessageContaining("transaction pooling");
    }
    assertThat(advisoryLocks()).isEqualTo(before);
  }

  /** A pool gone wrong: every borrower gets the same server session, as a pooler may hand out. */
  private static DataSource sharing(Connection session) {
    Connection handle =
        (Connection)
            Proxy.newProxyInstance(
                AdvisoryLockStoreTest.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "close", "abort" -> null; // the session stays with the "pooler"
                      default -> method.invoke(session, args);
                    });
    DataSource real = DB.dataSource();
    return (DataSource)
        Proxy.newProxyInstance(
            AdvisoryLockStoreTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) ->
                method.getName().equals("getConnection") ? handle : method.invoke(real, args));
  }
}
