package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.CountingListener;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.OtherWriter;
import dev.writerfence.testing.Pools;
import dev.writerfence.testing.RecordingLeaseStore;
import dev.writerfence.testing.SwitchableDataSource;
import dev.writerfence.testing.WriterProcess;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** The acquisition cases tagged {@code core} in the shared case list, each run for real. */
class CoreCasesTest extends FenceTestSupport {
  private static final Duration PROCESS_ANSWER = Duration.ofSeconds(30);

  @Test
  void C01_twoSimultaneousAcquiresOneWinnerOtherBusyAtOnce() throws Exception {
    try (HikariDataSource first = Pools.warmPool(DB.jdbcUrl(), "postgres", 1);
        HikariDataSource second = Pools.warmPool(DB.jdbcUrl(), "postgres", 1);
        HikariDataSource shared = Pools.warmPool(DB.jdbcUrl(), "postgres", 2)) {
      WriterFence onFirst = fence(first).build();
      WriterFence onSecond = fence(second).build();
      WriterFence onShared = fence(shared).build();
      for (int round = 0; round < 10; round++) {
        assertOneWinnerOneBusy(race(onFirst, onSecond, name + "/connections/" + round));
        assertOneWinnerOneBusy(race(onShared, onShared, name + "/one-pool/" + round));
      }
    }
  }

  @Test
  void C02_busyFenceFailsHighLevelCallsWithoutRunningAndTryAcquireIsEmpty() throws Exception {
    WriterFence fence = fence();
    // Held by another thread of the same fence: a hold of this thread would be joined.
    FenceLease holder =
        CompletableFuture.supplyAsync(
                () ->
                    fence
                        .tryAcquire(
                            FenceRequest.builder(name).holderLabel("holder-x").ttl(TTL).build())
                        .orElseThrow())
            .get();
    AtomicInteger ran = new AtomicInteger();

    WriterFenceBusyException busy =
        catchThrowableOfType(
            WriterFenceBusyException.class,
            () -> fence.call(request("late"), ran::incrementAndGet));
    assertThatThrownBy(() -> fence.run(request("late"), ran::incrementAndGet))
        .isInstanceOf(WriterFenceBusyException.class);
    Optional<FenceLease> tried =
        fence.tryAcquire(FenceRequest.builder(name).holderLabel("late").ttl(TTL).build());

    assertThat(ran).hasValue(0);
    assertThat(tried).isEmpty();
    assertThat(busy.fenceName()).isEqualTo(name);
    assertThat(busy.attempts())
        .as("a holder in the same fence: the call waited its turn and never asked the database")
        .isZero();
    assertThat(busy.holderLabel()).hasValue("holder-x@" + HolderLabel.instance());
    assertThat(busy.holderExpiresAt()).hasValue(holder.expiresAt());
    assertThat(busy)
        .hasMessageContaining(name)
        .hasMessageContaining("'holder-x@" + HolderLabel.instance() + "'");
    assertThat(fence.release(holder)).isTrue();
  }

  @Test
  void C02_busyHeldByAnotherProcessIsAskedOfTheDatabaseOnEveryAttempt() throws Exception {
    WriterFence otherProcess = fence(); // its own fence: its threads share no turns with ours
    FenceLease holder =
        OtherWriter.tryAcquire(
                otherProcess, FenceRequest.builder(name).holderLabel("holder-x").ttl(TTL).build())
            .orElseThrow();
    CountingListener listener = new CountingListener();
    WriterFence fence = fence(DB.dataSource()).listener(listener).build();
    AtomicInteger ran = new AtomicInteger();

    WriterFenceBusyException busy =
        catchThrowableOfType(
            WriterFenceBusyException.class,
            () -> fence.call(request("late"), ran::incrementAndGet));

    assertThat(ran).hasValue(0);
    // Within its budget the call polled the queue (ADR 37): every poll was a statement answered
    // busy by the database, none a local guess.
    assertThat(busy.attempts()).isGreaterThan(1).isEqualTo(listener.busyAttempts());
    assertThat(busy.place()).as("it waited at the head of the queue").isEqualTo(1);
    assertThat(busy)
        .hasMessageContaining("busy after " + busy.attempts() + " attempts in ")
        .hasMessageContaining(
            "against a budget of "
                + QUICK_RETRY.budget().toMillis()
                + "ms (to wait longer raise writer-fence.retry.max-wait")
        .hasMessageContaining("number 1 of 1 in its queue")
        .hasMessageContaining("'holder-x@" + HolderLabel.instance() + "'");
    assertThat(busy.waited()).hasValueSatisfying(w -> assertThat(w).isPositive());
    assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("late").ttl(TTL).build()))
        .isEmpty();
    assertThat(otherProcess.release(holder)).isTrue();
  }

  @Test
  void C03_releaseWithAnotherHolderTokenIsRefusedThenTheMintedTokenFrees() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = fence(store);
    FenceLease lease =
        fence
            .tryAcquire(FenceRequest.builder(name).holderLabel("owner").ttl(TTL).build())
            .orElseThrow();
    // A lease cannot be forged in Java (FenceLease has no public constructor): another holder
    // token reaches the store only through the SQL contract itself.
    UUID forgedToken = UUID.randomUUID();

    assertThat(sql.release(name, forgedToken)).isFalse();
    LeaseStatus afterForged = status(fence);
    assertThat(afterForged.state()).isEqualTo("held");
    assertThat(afterForged.holderLabel()).isEqualTo("owner@" + HolderLabel.instance());
    assertThat(afterForged.fencingToken()).isEqualTo(lease.fencingToken());

    assertThat(fence.release(lease)).isTrue();
    LeaseStatus afterOwn = status(fence);
    assertThat(afterOwn.state()).isEqualTo("free");
    assertThat(afterOwn.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(store.acquireTokens()).containsExactly(lease.holderToken());
    assertThat(store.releaseTokens()).containsExactly(lease.holderToken());

    // The high-level call releases with the token its own acquire minted.
    fence.run(request("call"), () -> {});
    assertThat(store.releaseTokens().get(1)).isEqualTo(store.acquireTokens().get(1));
    assertThat(status(fence).state()).isEqualTo("free");
  }

  @Test
  void C04_guardedCodeFailureReachesCallerWithReleaseFailureSuppressed() throws Exception {
    SwitchableDataSource database = new SwitchableDataSource(DB.dataSource());
    WriterFence fence = fence(database).build();
    IllegalStateException own = new IllegalStateException("guarded code failed");

    Throwable thrown =
        catchThrowable(
            () ->
                fence.call(
                    request("c04"),
                    () -> {
                      database.cutOff(); // the database is gone when the release runs
                      throw own;
                    }));
    database.restore();

    assertThat(thrown).isSameAs(own);
    assertThat(own.getSuppressed())
        .singleElement()
        .isInstanceOfSatisfying(
            WriterFenceUnavailableException.class,
            e -> {
              assertThat(e.sqlState()).hasValue("08001");
              assertThat(e).hasMessageContaining("cannot be reached");
            });
    assertThat(sql.state(name)).as("the release never reached the database").isEqualTo("held");

    // When the guarded code succeeds, its result stands although the release fails.
    String written =
        fence.call(
            FenceRequest.of(name + "/succeeds"),
            () -> {
              database.cutOff();
              return "written";
            });
    database.restore();
    assertThat(written).isEqualTo("written");
  }

  @Test
  void C05_busyAcquireNeverAttemptsARelease() throws Exception {
    FenceLease holder =
        OtherWriter.tryAcquire(
                fence(), FenceRequest.builder(name).holderLabel("holder").ttl(TTL).build())
            .orElseThrow();
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = fence(store);

    assertThatThrownBy(() -> fence.run(request("late"), () -> {}))
        .isInstanceOf(WriterFenceBusyException.class);
    assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("late").ttl(TTL).build()))
        .isEmpty();

    // The busy call's attempts (a plain acquire, then polls of the queue within its budget) all
    // carry the one holder token it minted; the try carries its own. None was ever released.
    List<UUID> tokens = store.acquireTokens();
    assertThat(tokens).hasSizeGreaterThan(2);
    assertThat(tokens.subList(0, tokens.size() - 1)).containsOnly(tokens.get(0));
    assertThat(tokens.get(tokens.size() - 1)).isNotEqualTo(tokens.get(0));
    assertThat(store.releaseTokens()).isEmpty();
    assertThat(sql.state(name)).isEqualTo("held");
    assertThat(sql.fencingToken(name)).isEqualTo(holder.fencingToken());
  }

  /** A production writer: its fence name is a constant, with no parameter for tests to bend. */
  static final class CorpusWriter {
    final CountDownLatch inside = new CountDownLatch(1);
    final CountDownLatch finish = new CountDownLatch(1);

    @WriterFenced(value = "corpus", holder = "production")
    public void writeBatch() throws InterruptedException {
      inside.countDown();
      finish.await(30, TimeUnit.SECONDS);
    }

    /** What a weaving mode's advice does around {@link #writeBatch()}. */
    Object runWoven(WriterFence fence, Method writeBatch) throws Exception {
      try {
        return FencedMethods.proceed(
            fence,
            writeBatch,
            new Object[0],
            () -> {
              writeBatch();
              return null;
            });
      } catch (Exception | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException(t);
      }
    }
  }

  @Test
  void C06_randomTestNamesPassWhileProductionHoldsTheDefaultName() throws Exception {
    Method writeBatch = CorpusWriter.class.getMethod("writeBatch");
    assertThat(writeBatch.getParameterCount()).isZero();
    assertThat(FencedMethods.lookup(writeBatch).orElseThrow().request(null, QUICK_RETRY))
        .extracting(FenceRequest::fenceName)
        .isEqualTo("corpus");
    CorpusWriter production = new CorpusWriter();
    WriterFence fence = fence();
    ExecutorService productionThread = Executors.newSingleThreadExecutor();
    try {
      Future<Object> productionRun =
          productionThread.submit(() -> production.runWoven(fence, writeBatch));
      assertThat(production.inside.await(10, TimeUnit.SECONDS)).isTrue();
      LeaseStatus corpus = fence.status("corpus").orElseThrow();
      assertThat(corpus.state()).isEqualTo("held");
      assertThat(corpus.holderLabel()).isEqualTo("production@" + HolderLabel.instance());

      // The test's exclusivity check, on its own random name, is untouched by that hold.
      FenceLease mine =
          fence
              .tryAcquire(FenceRequest.builder(name).holderLabel("test").ttl(TTL).build())
              .orElseThrow();
      assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("rival").ttl(TTL).build()))
          .isEmpty();
      assertThat(fence.release(mine)).isTrue();
      assertThat(fence.status("corpus").orElseThrow())
          .usingRecursiveComparison()
          .ignoringFields("secondsLeft")
          .isEqualTo(corpus);

      production.finish.countDown();
      productionRun.get(10, TimeUnit.SECONDS);
      assertThat(fence.status("corpus").orElseThrow().state()).isEqualTo("free");
    } finally {
      production.finish.countDown();
      productionThread.shutdownNow();
    }
  }

  @Test
  void C07_expiredLeaseIsTakenOverWithHigherToken() throws Exception {
    WriterFence fence = fence(DB.dataSource()).withoutRenewal().build(); // the holder stalls
    FenceLease stalled =
        fence
            .tryAcquire(
                FenceRequest.builder(name)
                    .holderLabel("stalled")
                    .ttl(Duration.ofSeconds(2))
                    .build())
            .orElseThrow();
    assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("second").ttl(TTL).build()))
        .as("busy while live")
        .isEmpty();

    awaitState(sql, "expired"); // the stalled holder does not renew
    FenceLease second =
        fence
            .tryAcquire(FenceRequest.builder(name).holderLabel("second").ttl(TTL).build())
            .orElseThrow();
    LeaseStatus taken = status(fence);

    assertThat(second.fencingToken()).isGreaterThan(stalled.fencingToken());
    assertThat(fence.release(stalled)).isFalse();
    LeaseStatus afterStaleRelease = status(fence);
    assertThat(afterStaleRelease.state()).isEqualTo("held");
    assertThat(afterStaleRelease.holderLabel()).isEqualTo("second@" + HolderLabel.instance());
    assertThat(afterStaleRelease.fencingToken()).isEqualTo(second.fencingToken());
    assertThat(afterStaleRelease.expiresAt()).isEqualTo(taken.expiresAt());
    assertThat(fence.release(second)).isTrue();
  }

  @Test
  void C08_nestedFencedCallRunsInsideTheHoldAndAnotherProcessAcquiresAfter() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = fence(store);
    try (ForkedJvm otherProcess = WriterProcess.fork(DB, SCHEMA, "serve")) {
      long outerToken =
          fence.call(
              request("pull_sync"),
              () -> {
                FenceLease outer = WriterFence.current(name).orElseThrow();
                FenceLease walk =
                    fence.call(request("walk"), () -> WriterFence.current(name).orElseThrow());
                assertThat(walk).isSameAs(outer);
                assertThat(tryFrom(otherProcess)).isEqualTo("busy");
                return outer.fencingToken();
              });

      assertThat(store.acquireTokens()).hasSize(1);
      assertThat(store.releaseTokens()).hasSize(1);
      assertThat(WriterFence.current(name)).isEmpty();
      assertThat(tryFrom(otherProcess)).isEqualTo("acquired " + (outerToken + 1));
      otherProcess.send("release " + name);
      assertThat(otherProcess.awaitLine("released", PROCESS_ANSWER)).isEqualTo("released true");
    }
  }

  @Test
  void C09_burstOf32WritersOnANewNameInAnEmptyTableHasOneWinnerAndNoErrors() throws Exception {
    String schema = "wf_burst";
    DB.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE", "DROP TABLE IF EXISTS burst_work");
    FenceSchema.defaults().schema(schema).install(DB.dataSource());
    DB.execute("CREATE TABLE burst_work (note text)");
    assertThat(new ContractCalls(DB.dataSource(), schema).leaseRows()).isZero();
    int logMark = DB.serverLogMark();

    List<ForkedJvm> others = new ArrayList<>();
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", 9)) {
      for (int i = 0; i < 3; i++) {
        others.add(WriterProcess.fork(DB, schema, "burst", name, "8"));
      }
      WriterFence fence = fence(pool).schema(schema).build();
      Queue<FenceLease> won = new ConcurrentLinkedQueue<>();
      CountDownLatch ready = new CountDownLatch(8);
      CountDownLatch go = new CountDownLatch(1);
      List<Future<String>> mine = new ArrayList<>();
      mine.add(threads.submit(() -> tryInsideOpenTransaction(pool, fence, won, ready, go)));
      for (int t = 1; t < 8; t++) {
        String label = "test-jvm/" + t;
        mine.add(
            threads.submit(
                () -> {
                  ready.countDown();
                  go.await();
                  return WriterProcess.tryOnce(fence, name, label, won);
                }));
      }
      assertThat(ready.await(30, TimeUnit.SECONDS)).isTrue();
      others.forEach(other -> other.send("go"));
      go.countDown();

      List<String> results = new ArrayList<>();
      for (Future<String> result : mine) {
        results.add(result.get(30, TimeUnit.SECONDS));
      }
      for (ForkedJvm other : others) {
        other.awaitLines("result ", 8, PROCESS_ANSWER).forEach(l -> results.add(l.substring(7)));
      }
      assertThat(results).hasSize(32).containsOnlyOnce("acquired " + FencingTokens.first(1));
      assertThat(results).filteredOn("busy"::equals).hasSize(31);

      for (ForkedJvm other : others) {
        other.send("release");
        other.awaitLine("done", PROCESS_ANSWER);
      }
      won.forEach(fence::release);
    } finally {
      threads.shutdownNow();
      others.forEach(ForkedJvm::close);
    }
    assertThat(DB.queryValue(Long.class, "SELECT count(*) FROM burst_work WHERE note = ?", name))
        .as("the in-transaction caller committed its own work afterwards")
        .isEqualTo(1L);
    assertThat(DB.serverProblemsSince(logMark)).isEmpty();
  }

  @Test
  void C10_serializationFailuresAndDeadlocksAreRetriedNeverBusy() throws Exception {
    ContractCalls faulty = FaultInjection.faultyCalls();
    String sequence = FaultInjection.inject(name, 3); // 40001, 40P01, 40001, then none
    CountingListener listener = new CountingListener();
    WriterFence fence = FaultInjection.fence(5, listener);
    int logMark = DB.serverLogMark();

    long token =
        fence.call(
            request("c10"),
            () -> {
              assertThat(faulty.state(name)).isEqualTo("held");
              return WriterFence.current(name).orElseThrow().fencingToken();
            });

    assertThat(DB.serverProblemsSince(logMark))
        .as("the server raised the faults for real")
        .filteredOn(l -> l.contains("injected fault"))
        .hasSize(3);
    assertThat(DB.queryValue(Long.class, "SELECT last_value FROM " + sequence))
        .as("writes that reached the table: 3 failed acquires, the acquire, the release")
        .isEqualTo(5L);
    assertThat(listener.attemptsOfLastAcquire()).isEqualTo(4);
    assertThat(listener.busyAttempts()).isZero();
    assertThat(listener.busy()).isZero();
    assertThat(token).as("failed attempts left nothing behind").isEqualTo(FencingTokens.first(1));
    assertThat(listener.freed()).isEqualTo(1);
    assertThat(faulty.state(name)).isEqualTo("free");
    assertThat(faulty.fencingToken(name)).isEqualTo(FencingTokens.first(1));
  }

  @Test
  void C10_transientFailuresOnReleaseAreRetriedLeavingNoLeaseBehind() throws Exception {
    ContractCalls faulty = FaultInjection.faultyCalls();
    CountingListener listener = new CountingListener();
    WriterFence fence = FaultInjection.fence(5, listener);

    String result =
        fence.call(
            request("c10"),
            () -> {
              FaultInjection.inject(name, 2); // the release's update fails twice
              return "written";
            });

    assertThat(result).isEqualTo("written");
    assertThat(listener.freed()).isEqualTo(1);
    assertThat(faulty.state(name)).as("the lease was not left held").isEqualTo("free");

    FenceLease lease =
        fence
            .tryAcquire(FenceRequest.builder(name).holderLabel("c10").ttl(TTL).build())
            .orElseThrow();
    FaultInjection.inject(name, 100);
    assertThat(catchThrowable(() -> fence.release(lease)))
        .isInstanceOfSatisfying(
            WriterFenceUnavailableException.class,
            e -> assertThat(e.sqlState()).hasValueSatisfying(s -> assertThat(s).startsWith("40")));
  }

  @Test
  void C10_transientFailuresPastTheBoundAreUnavailableNamingTheSqlState() throws Exception {
    ContractCalls faulty = FaultInjection.faultyCalls();
    FaultInjection.inject(name, 100);
    CountingListener listener = new CountingListener();
    WriterFence fence = FaultInjection.fence(3, listener);

    List<WriterFenceUnavailableException> refused = refusedAsUnavailable(fence, listener);

    WriterFenceUnavailableException exhausted = refused.get(0);
    assertThat(exhausted.sqlState()).hasValue("40001"); // the third fault
    assertThat(exhausted).hasMessageContaining("SQLState 40001").hasMessageContaining("3 attempts");
    assertThat(refused.get(1).sqlState()).hasValue("40P01"); // the fourth fault
    assertThat(listener.unavailable()).isEqualTo(2);
    assertThat(faulty.state(name)).as("no row was ever written").isNull();
  }

  @Test
  void C11_readOnlyDatabaseIsUnavailableNotBusy() throws Exception {
    DB.execute("DROP DATABASE IF EXISTS wf_read_only", "CREATE DATABASE wf_read_only");
    DataSource readOnly = DB.dataSource("wf_read_only", "postgres", null);
    FenceSchema.defaults().install(readOnly);
    DB.execute("ALTER DATABASE wf_read_only SET default_transaction_read_only = on");
    CountingListener listener = new CountingListener();
    WriterFence fence = fence(readOnly).listener(listener).build();

    for (WriterFenceUnavailableException e : refusedAsUnavailable(fence, listener)) {
      assertThat(e.sqlState()).hasValue("25006");
      assertThat(e).hasMessageContaining("25006").hasMessageContaining("read-only");
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static List<Optional<FenceLease>> race(
      WriterFence first, WriterFence second, String fenceName) {
    CyclicBarrier start = new CyclicBarrier(2);
    ExecutorService two = Executors.newFixedThreadPool(2);
    try {
      return assertTimeoutPreemptively(
          Duration.ofSeconds(5),
          () -> {
            Future<Optional<FenceLease>> a =
                two.submit(
                    () -> {
                      start.await();
                      return first.tryAcquire(
                          FenceRequest.builder(fenceName).holderLabel("first").ttl(TTL).build());
                    });
            Future<Optional<FenceLease>> b =
                two.submit(
                    () -> {
                      start.await();
                      return second.tryAcquire(
                          FenceRequest.builder(fenceName).holderLabel("second").ttl(TTL).build());
                    });
            return List.of(a.get(), b.get());
          },
          "an acquire blocked instead of answering busy at once");
    } finally {
      two.shutdownNow();
    }
  }

  private static void assertOneWinnerOneBusy(List<Optional<FenceLease>> outcomes) {
    assertThat(outcomes).filteredOn(Optional::isPresent).hasSize(1);
    FenceLease winner = outcomes.stream().flatMap(Optional::stream).findFirst().orElseThrow();
    assertThat(fence().release(winner)).isTrue();
  }

  /**
   * A fenced call and a try, both refused as unavailable.
   *
   * @return the call's exception, then the try's; neither was busy and the guarded code never ran
   */
  private List<WriterFenceUnavailableException> refusedAsUnavailable(
      WriterFence fence, CountingListener listener) {
    AtomicInteger ran = new AtomicInteger();
    WriterFenceUnavailableException called =
        catchThrowableOfType(
            WriterFenceUnavailableException.class,
            () -> fence.call(request("unavailable"), ran::incrementAndGet));
    WriterFenceUnavailableException tried =
        catchThrowableOfType(
            WriterFenceUnavailableException.class,
            () ->
                fence.tryAcquire(
                    FenceRequest.builder(name).holderLabel("unavailable").ttl(TTL).build()));
    assertThat(ran).as("the guarded code ran").hasValue(0);
    assertThat(listener.busyAttempts()).isZero();
    assertThat(listener.busy()).isZero();
    return List.of(called, tried);
  }

  private String tryFrom(ForkedJvm process) {
    process.send("try " + name + " other-process 30");
    return process.awaitLine(l -> l.equals("busy") || l.startsWith("acquired"), PROCESS_ANSWER);
  }

  /** One burst caller: it has done work in its own open transaction, tries, then commits. */
  private String tryInsideOpenTransaction(
      DataSource pool,
      WriterFence fence,
      Queue<FenceLease> won,
      CountDownLatch ready,
      CountDownLatch go)
      throws SQLException, InterruptedException {
    try (Connection transaction = pool.getConnection()) {
      transaction.setAutoCommit(false);
      try (PreparedStatement work =
          transaction.prepareStatement("INSERT INTO burst_work (note) VALUES (?)")) {
        work.setString(1, name);
        work.executeUpdate();
      }
      ready.countDown();
      go.await();
      String result = WriterProcess.tryOnce(fence, name, "in-transaction", won);
      try (PreparedStatement check =
              transaction.prepareStatement("SELECT count(*) FROM burst_work WHERE note = ?");
          ResultSet rs = executeQuery(check, name)) {
        rs.next();
        assertThat(rs.getLong(1)).as("the transaction still sees its own work").isEqualTo(1);
      }
      transaction.commit();
      return result;
    }
  }

  private static ResultSet executeQuery(PreparedStatement ps, String param) throws SQLException {
    ps.setString(1, param);
    return ps.executeQuery();
  }

  /**
   * Real server-side transient errors: a test-only trigger on the lease table of a schema of its
   * own raises SQLState 40001 and 40P01 (alternately) on the first N writes of one fence name. A
   * sequence counts them, because a sequence advances even when the failing transaction rolls back.
   */
  private static final class FaultInjection {
    private static final String SCHEMA = "wf_faults";
    private static boolean installed;

    static synchronized ContractCalls faultyCalls() throws SQLException {
      if (!installed) {
        FenceSchema.defaults().schema(SCHEMA).install(DB.dataSource());
        DB.execute(
            "CREATE OR REPLACE FUNCTION "
                + SCHEMA
                + ".inject_fault() RETURNS trigger LANGUAGE plpgsql AS $$\n"
                + "DECLARE n bigint;\n"
                + "BEGIN\n"
                + "  IF NEW.fence_name = TG_ARGV[0] THEN\n"
                + "    n := nextval(TG_ARGV[1]);\n"
                + "    IF n <= TG_ARGV[2]::bigint THEN\n"
                + "      RAISE EXCEPTION 'injected fault % of %', n, TG_ARGV[2]\n"
                + "        USING ERRCODE = CASE WHEN n % 2 = 1 THEN '40001' ELSE '40P01' END;\n"
                + "    END IF;\n"
                + "  END IF;\n"
                + "  RETURN NEW;\n"
                + "END $$");
        installed = true;
      }
      return new ContractCalls(DB.dataSource(), SCHEMA);
    }

    /**
     * @return the sequence that counts the writes tried
     */
    static String inject(String fenceName, int faults) {
      String id = "f" + UUID.randomUUID().toString().replace("-", "");
      String sequence = SCHEMA + "." + id;
      DB.execute(
          "CREATE SEQUENCE " + sequence,
          "CREATE TRIGGER "
              + id
              + " BEFORE INSERT OR UPDATE ON "
              + SCHEMA
              + ".lease FOR EACH ROW EXECUTE FUNCTION "
              + SCHEMA
              + ".inject_fault('"
              + fenceName
              + "', '"
              + sequence
              + "', '"
              + faults
              + "')");
      return sequence;
    }

    static WriterFence fence(int maxAttempts, CountingListener listener) {
      return FenceTestSupport.fence(DB.dataSource())
          .schema(SCHEMA)
          .retryPolicy(
              new BusyRetryPolicy(maxAttempts, Duration.ofMillis(5), 1.0, Duration.ofMillis(5), 0))
          .listener(listener)
          .build();
    }
  }
}
