package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.ContractCalls;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * The SQL contract as any language calls it: {@code acquire}, {@code renew}, {@code release}, the
 * {@code lease_status} view, and the installer that puts them in place.
 */
class SqlContractTest extends FenceTestSupport {
  /** A fence name's first fencing token on the embedded server's timeline 1. */
  private static final long FIRST = FencingTokens.first(1);

  @Test
  void acquireAnswersATokenOrNullAndTheSameHolderGetsItsCurrentTokenBack() throws Exception {
    UUID holder = UUID.randomUUID();
    Long token = sql.acquire(name, holder, "first", 30);
    OffsetDateTime expiresAt = sql.expiresAt(name);

    assertThat(token).as("a name's first token on timeline 1").isEqualTo(FIRST);
    assertThat(sql.acquire(name, holder, "first", 30)).isEqualTo(token);
    assertThat(sql.expiresAt(name)).as("a repeat changes nothing").isEqualTo(expiresAt);
    assertThat(sql.acquire(name, UUID.randomUUID(), "second", 30)).isNull();
    assertThat(sql.fencingToken(name)).isEqualTo(token);
  }

  @Test
  void sameHolderReacquiringALiveLeaseGetsItBackUnchangedLabelAndTimesIncluded() throws Exception {
    UUID holder = UUID.randomUUID();
    PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
    StoreLease first =
        store.acquire(name, holder, "first-label", Duration.ofSeconds(60)).orElseThrow();
    LeaseStatus before = statusRow();

    StoreLease again =
        store.acquire(name, holder, "second-label", Duration.ofSeconds(5)).orElseThrow();
    LeaseStatus after = statusRow();

    assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
    assertThat(again.acquiredAt()).isEqualTo(first.acquiredAt());
    assertThat(again.expiresAt()).isEqualTo(first.expiresAt());
    assertThat(after.holderLabel()).as("the label stays too").isEqualTo("first-label");
    assertThat(after).usingRecursiveComparison().ignoringFields("secondsLeft").isEqualTo(before);
    assertThat(sql.acquire(name, holder, "third-label", 30)).isEqualTo(first.fencingToken());
    assertThat(statusRow().holderLabel()).isEqualTo("first-label");
  }

  @Test
  void busyAcquireAnswersAtOnceWithoutWaitingOnTheRowLock() throws Exception {
    UUID holder = UUID.randomUUID();
    Long token = sql.acquire(name, holder, "holder", 30);
    try (Connection locker = DB.dataSource().getConnection()) {
      locker.setAutoCommit(false);
      lockRow(locker); // as a slow release, or anything else holding the row, would

      long started = System.nanoTime();
      Long busy = sql.acquire(name, UUID.randomUUID(), "late", 30);
      long millis = (System.nanoTime() - started) / 1_000_000;

      assertThat(busy).isNull();
      assertThat(millis).as("ms; lock_timeout is 500 ms").isLessThan(400);
      locker.rollback();
    }
    assertThat(sql.fencingToken(name)).isEqualTo(token);
    assertThat(sql.release(name, holder)).isTrue();
  }

  @Test
  void acquireOfAFreeRowAnotherSessionIsChangingAnswersBusyAtOnceInsteadOfQueueing()
      throws Exception {
    UUID first = UUID.randomUUID();
    sql.acquire(name, first, "first", 30);
    sql.release(name, first);
    try (Connection locker = DB.dataSource().getConnection()) {
      locker.setAutoCommit(false);
      lockRow(locker); // as an acquire or release in flight would

      long started = System.nanoTime();
      Long busy = sql.acquire(name, UUID.randomUUID(), "late", 30);
      long millis = (System.nanoTime() - started) / 1_000_000;

      assertThat(busy).as("busy while another session changes the row").isNull();
      assertThat(millis).as("ms; lock_timeout is 500 ms").isLessThan(400);
      locker.rollback();
    }
    assertThat(sql.acquire(name, UUID.randomUUID(), "next", 30))
        .as("free again once that session is done")
        .isEqualTo(FIRST + 1);
  }

  @Test
  void busyAcquireInAnOpenTransactionDoesNotHoldUpTheHoldersRelease() throws Exception {
    UUID holder = UUID.randomUUID();
    sql.acquire(name, holder, "holder", 30);
    try (Connection busyCaller = DB.dataSource().getConnection()) {
      busyCaller.setAutoCommit(false);
      try (PreparedStatement ps =
          busyCaller.prepareStatement("SELECT writer_fence.acquire(?, ?, 'late', 30)")) {
        ps.setString(1, name);
        ps.setObject(2, UUID.randomUUID());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getObject(1)).as("busy").isNull();
        }
      }
      // The busy caller's transaction is still open: it must hold no lock on the row.
      long started = System.nanoTime();
      assertThat(sql.release(name, holder)).isTrue();
      assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(400);
      busyCaller.rollback();
    }
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void renewExtendsOnlyALiveLeaseOfTheSameHolder() throws Exception {
    UUID holder = UUID.randomUUID();
    sql.acquire(name, holder, "holder", 30);
    OffsetDateTime before = sql.expiresAt(name);

    assertThat(sql.renew(name, UUID.randomUUID(), 600)).isFalse();
    assertThat(sql.expiresAt(name)).isEqualTo(before);
    assertThat(sql.renew(name, holder, 600)).isTrue();
    assertThat(sql.expiresAt(name)).isAfter(before.plusSeconds(500));
    assertThat(sql.renew(name + "-never-acquired", holder, 600)).isFalse();

    assertThat(sql.release(name, holder)).isTrue();
    assertThat(sql.renew(name, holder, 600)).as("released").isFalse();
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void renewSetsTheExpiryToNowPlusTheTtlAndCanShortenALease() throws Exception {
    UUID holder = UUID.randomUUID();
    sql.acquire(name, holder, "holder", 600);
    OffsetDateTime longLease = sql.expiresAt(name);

    assertThat(sql.renew(name, holder, 1)).isTrue();

    OffsetDateTime shortened = sql.expiresAt(name);
    assertThat(shortened).isBefore(longLease.minusSeconds(590));
    assertThat(statusRow().secondsLeft()).isLessThanOrEqualTo(BigDecimal.ONE);
    assertThat(sql.release(name, holder)).isTrue();
  }

  @Test
  void releaseFreesOnlyForTheSameHolderAndKeepsTheCounter() throws Exception {
    UUID holder = UUID.randomUUID();
    Long token = sql.acquire(name, holder, "holder", 30);

    assertThat(sql.release(name, UUID.randomUUID())).isFalse();
    assertThat(sql.state(name)).isEqualTo("held");
    assertThat(sql.release(name, holder)).isTrue();
    assertThat(sql.release(name, holder)).as("twice").isFalse();
    assertThat(sql.state(name)).isEqualTo("free");
    assertThat(sql.fencingToken(name)).isEqualTo(token);
    assertThat(statusRow().holderLabel()).as("the last holder stays visible").isEqualTo("holder");
  }

  @Test
  void tokensStayMonotonicAcrossReleaseAndExpiryTakeoverThroughEveryState() throws Exception {
    UUID first = UUID.randomUUID();
    UUID second = UUID.randomUUID();
    UUID third = UUID.randomUUID();

    Long t1 = sql.acquire(name, first, "first", 30);
    assertThat(statusRow().state()).isEqualTo("held");
    assertThat(statusRow().secondsLeft()).isGreaterThan(BigDecimal.valueOf(25));
    sql.release(name, first);
    assertThat(statusRow().state()).isEqualTo("free");
    assertThat(statusRow().secondsLeft()).isZero();

    Long t2 = sql.acquire(name, second, "second", 1);
    awaitState(sql, "expired");
    assertThat(statusRow().secondsLeft()).isZero();
    assertThat(sql.renew(name, second, 30)).as("expired leases are not renewed").isFalse();

    Long t3 = sql.acquire(name, third, "third", 30);
    assertThat(sql.release(name, second)).as("the stale holder").isFalse();
    assertThat(statusRow().state()).isEqualTo("held");
    assertThat(statusRow().holderLabel()).isEqualTo("third");
    assertThat(List.of(t1, t2, t3)).containsExactly(FIRST, FIRST + 1, FIRST + 2);
  }

  @Test
  void installingAgainKeepsLeasesAndTokens() throws Exception {
    UUID holder = UUID.randomUUID();
    Long token = sql.acquire(name, holder, "kept", 30);

    FenceSchema.defaults().install(DB.dataSource());
    FenceSchema.defaults().install(DB.dataSource());

    assertThat(sql.state(name)).isEqualTo("held");
    assertThat(sql.fencingToken(name)).isEqualTo(token);
    assertThat(sql.release(name, holder)).isTrue();
    assertThat(DB.queryValue(Integer.class, "SELECT writer_fence.schema_version()"))
        .isEqualTo(FenceSchema.VERSION);
  }

  @Test
  void concurrentInstallsFromSeveralThreadsAllSucceedWithOneContract() throws Exception {
    String schema = "wf_concurrent";
    DB.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
    int installers = 6;
    CyclicBarrier start = new CyclicBarrier(installers);
    ExecutorService threads = Executors.newFixedThreadPool(installers);
    try {
      List<Future<Void>> installs = new ArrayList<>();
      for (int i = 0; i < installers; i++) {
        installs.add(
            threads.submit(
                () -> {
                  start.await();
                  FenceSchema.defaults().schema(schema).install(DB.dataSource());
                  return null;
                }));
      }
      for (Future<Void> install : installs) {
        install.get(); // any installer's failure fails the test here
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(
            DB.queryValue(
                String.class,
                "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables"
                    + " WHERE schemaname = ?",
                schema))
        .as("one table of each")
        .isEqualTo("issuing_cluster,lease,waiter");
    ContractCalls installed = new ContractCalls(DB.dataSource(), schema);
    assertThat(installed.acquire(name, UUID.randomUUID(), "after", 30)).isEqualTo(FIRST);
  }

  @Test
  void releaseCommitsWithoutAFlushOfItsOwnWhileAcquireAndRenewKeepTheSessionsSetting()
      throws Exception {
    UUID holder = UUID.randomUUID();
    try (Connection c = DB.dataSource().getConnection()) {
      try (PreparedStatement ps = c.prepareStatement("SET synchronous_commit = on")) {
        ps.execute(); // the test server's default is off; a production session's is on
      }
      c.setAutoCommit(false);
      assertThat(call(c, "SELECT " + SCHEMA + ".acquire(?, ?, 'h', 30)", name, holder))
          .isEqualTo(Long.toString(FIRST));
      assertThat(synchronousCommit(c))
          .as("acquire must be durable when it answers")
          .isEqualTo("on");
      call(c, "SELECT " + SCHEMA + ".renew(?, ?, 30)", name, holder);
      assertThat(synchronousCommit(c)).as("renew must be durable when it answers").isEqualTo("on");
      assertThat(call(c, "SELECT " + SCHEMA + ".release(?, ?)", name, holder)).isEqualTo("t");
      assertThat(synchronousCommit(c)).as("the release's own transaction").isEqualTo("off");
      c.commit();
      assertThat(synchronousCommit(c)).as("the session after that transaction").isEqualTo("on");
    }
    assertThat(sql.state(name)).isEqualTo("free");
  }

  private static String call(Connection c, String query, String fenceName, UUID holder)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(query)) {
      ps.setString(1, fenceName);
      ps.setObject(2, holder);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }

  private static String synchronousCommit(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SHOW synchronous_commit");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getString(1);
    }
  }

  private LeaseStatus statusRow() {
    return status(fence());
  }

  private void lockRow(Connection transaction) throws SQLException {
    try (PreparedStatement ps =
        transaction.prepareStatement(
            "SELECT 1 FROM " + SCHEMA + ".lease WHERE fence_name = ? FOR UPDATE")) {
      ps.setString(1, name);
      ps.executeQuery().close();
    }
  }
}
