package dev.writerfence.shedlock;

import static java.time.Duration.ZERO;
import static java.time.Duration.ofMillis;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.Pools;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.support.KeepAliveLockProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * ShedLock's documented contract of a {@code LockProvider} and its {@code SimpleLock}, held against
 * the lease row on a real PostgreSQL, with what the lease adds (holder tokens, fencing tokens,
 * database-clock expiry). ShedLock's own provider test kit runs whole in {@link
 * ShedLockTestKitTest}.
 */
class WriterFenceLockProviderTest {
  private static HikariDataSource pool;
  private static PgLeaseStore store;
  private static ContractCalls contract;

  private final String name = FenceNames.random("shedlock");
  private final WriterFenceLockProvider provider = new WriterFenceLockProvider(store, "job-a");

  @BeforeAll
  static void start() {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    pool = Pools.warmPool(db.jdbcUrl(), "postgres", 10);
    store = new PgLeaseStore(pool, FenceSchema.DEFAULT_SCHEMA, ofSeconds(10));
    contract = new ContractCalls(pool, FenceSchema.DEFAULT_SCHEMA);
  }

  @AfterAll
  static void stop() {
    pool.close();
  }

  private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
    return new LockConfiguration(Instant.now(), name, atMost, atLeast);
  }

  private LockConfiguration config(Duration atMost, Duration atLeast) {
    return config(name, atMost, atLeast);
  }

  private SimpleLock lock(Duration atMost, Duration atLeast) {
    Optional<SimpleLock> lock = provider.lock(config(atMost, atLeast));
    assertThat(lock).as("lock %s", name).isPresent();
    return lock.get();
  }

  private LeaseStatus status() {
    return store.status(name).orElseThrow();
  }

  private boolean lockable() {
    Optional<SimpleLock> other =
        new WriterFenceLockProvider(store, "job-b").lock(config(ofMinutes(5), ZERO));
    other.ifPresent(SimpleLock::unlock);
    return other.isPresent();
  }

  @Test
  void lockHoldsTheLeaseAndUnlockFreesIt() {
    SimpleLock lock = lock(ofMinutes(5), ZERO);
    assertThat(status().isHeld()).isTrue();
    assertThat(status().holderLabel()).isEqualTo("job-a@" + HolderLabel.instance());

    lock.unlock();

    assertThat(status().state()).isEqualTo("free");
  }

  @Test
  void secondLockIsRefusedWhileHeldFromThisProviderAndAnother() {
    SimpleLock lock = lock(ofMinutes(5), ZERO);

    assertThat(provider.lock(config(ofMinutes(5), ZERO))).isEmpty();
    assertThat(new WriterFenceLockProvider(store, "job-b").lock(config(ofMinutes(5), ZERO)))
        .isEmpty();

    lock.unlock();
    assertThat(lockable()).isTrue();
  }

  @Test
  void twoNamesAreIndependent() {
    SimpleLock first = lock(ofMinutes(5), ZERO);
    Optional<SimpleLock> second = provider.lock(config(name + "-2", ofMinutes(5), ZERO));

    assertThat(second).isPresent();
    first.unlock();
    second.get().unlock();
  }

  @Test
  void lockRightAfterUnlockWinsAgainWithAGreaterFencingToken() {
    long last = 0;
    for (int i = 0; i < 10; i++) {
      LeaseLock lock = (LeaseLock) lock(ofMinutes(5), ZERO);
      assertThat(provider.lock(config(ofMinutes(5), ZERO))).as("round %d", i).isEmpty();
      assertThat(lock.lease().fencingToken()).isGreaterThan(last);
      last = lock.lease().fencingToken();
      lock.unlock();
    }
  }

  @Test
  void lockAtMostForIsTheTtlOnTheDatabaseClockAndThenAnotherHolderTakesOver() {
    LeaseLock first = (LeaseLock) lock(ofMillis(1500), ZERO); // to the millisecond (ADR 62)
    LeaseStatus held = status();
    assertThat(Duration.between(held.acquiredAt(), held.expiresAt())).isEqualTo(ofMillis(1500));
    assertThat(lockable()).as("before lockAtMostFor has passed").isFalse();

    WriterFenceLockProvider other = new WriterFenceLockProvider(store, "job-b");
    LeaseLock second =
        (LeaseLock)
            await()
                .atMost(ofSeconds(15))
                .until(() -> other.lock(config(ofMinutes(5), ZERO)), Optional::isPresent)
                .orElseThrow();

    assertThat(second.lease().fencingToken()).isGreaterThan(first.lease().fencingToken());
    // The first holder's late unlock names its own holder token: it frees nothing.
    first.unlock();
    assertThat(status().isHeld()).isTrue();
    assertThat(status().holderLabel()).isEqualTo("job-b@" + HolderLabel.instance());
    second.unlock();
  }

  @Test
  void unlockBeforeLockAtLeastForKeepsTheLeaseUntilThen() {
    SimpleLock lock = lock(ofSeconds(10), ofSeconds(3));
    Instant acquiredAt = status().acquiredAt();

    lock.unlock();

    assertThat(status().isHeld()).as("kept after unlock").isTrue();
    assertThat(lockable()).as("within lockAtLeastFor").isFalse();
    // Kept at least lockAtLeastFor from the grant, and no longer than lockAtMostFor.
    assertThat(status().expiresAt())
        .isAfterOrEqualTo(acquiredAt.plusSeconds(3))
        .isBefore(acquiredAt.plusSeconds(10));
    await().atMost(ofSeconds(15)).until(this::lockable);
  }

  @Test
  void unlockAfterLockAtLeastForFreesTheLease() {
    SimpleLock lock = lock(ofSeconds(10), ofSeconds(1));
    await().pollDelay(ofMillis(1100)).atMost(ofSeconds(5)).until(() -> true);

    lock.unlock();

    assertThat(status().state()).isEqualTo("free");
  }

  @Test
  void extendMovesTheExpiryAndKeepsTheHolder() {
    SimpleLock lock = lock(ofSeconds(1), ZERO);

    Optional<SimpleLock> extended = lock.extend(ofSeconds(30), ZERO);

    assertThat(extended).isPresent();
    LeaseStatus row = status();
    assertThat(row.isHeld()).isTrue();
    assertThat(((LeaseLock) extended.get()).lease().expiresAt()).isEqualTo(row.expiresAt());
    assertThat(row.expiresAt()).isAfterOrEqualTo(row.acquiredAt().plusSeconds(30));
    // Past the first lockAtMostFor the lease is still this holder's.
    await().pollDelay(ofMillis(1500)).atMost(ofSeconds(5)).until(() -> true);
    assertThat(lockable()).isFalse();
    extended.get().unlock();
    assertThat(status().state()).isEqualTo("free");
  }

  @Test
  void extendSeveralTimesThenUnlock() {
    SimpleLock lock = lock(ofSeconds(2), ZERO);
    for (int i = 0; i < 3; i++) {
      lock = lock.extend(ofSeconds(10), ZERO).orElseThrow();
    }
    assertThat(lockable()).isFalse();
    lock.unlock();
    assertThat(lockable()).isTrue();
  }

  @Test
  void extendWithLockAtLeastForKeepsTheLeaseAfterUnlock() {
    SimpleLock lock = lock(ofSeconds(10), ZERO);

    lock.extend(ofSeconds(10), ofSeconds(9)).orElseThrow().unlock();

    assertThat(status().isHeld()).isTrue();
    assertThat(lockable()).isFalse();
  }

  @Test
  void anExpiredLockCannotBeExtended() {
    SimpleLock lock = lock(ofMillis(2), ZERO); // a lease of 2 ms
    await().atMost(ofSeconds(10)).until(() -> status().state().equals("expired"));

    assertThat(lock.extend(ofSeconds(10), ZERO)).isEmpty();
    assertThat(WriterFenceLockProvider.current(name)).isEmpty();
    assertThat(lockable()).isTrue();
  }

  @Test
  void shedLocksKeepAliveExtendsTheLeaseFromItsTimerThread() {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    try {
      KeepAliveLockProvider keepAlive = new KeepAliveLockProvider(provider, timer);
      SimpleLock lock = keepAlive.lock(config(ofSeconds(30), ZERO)).orElseThrow(); // its minimum
      Instant acquiredAt = status().acquiredAt();
      long token = WriterFenceLockProvider.current(name).orElseThrow().fencingToken();

      // Half-way through lockAtMostFor the keep-alive extends it by another 30 s.
      await()
          .atMost(ofSeconds(40))
          .until(() -> status().expiresAt().isAfter(acquiredAt.plusSeconds(30)));
      assertThat(WriterFenceLockProvider.current(name).orElseThrow())
          .satisfies(l -> assertThat(l.fencingToken()).isEqualTo(token))
          .satisfies(l -> assertThat(l.expiresAt()).isEqualTo(status().expiresAt()));

      lock.unlock();
      assertThat(status().state()).isEqualTo("free");
      assertThat(WriterFenceLockProvider.current(name)).isEmpty();
    } finally {
      timer.shutdownNow();
    }
  }

  @Test
  void aSpentLockRefusesEveryFurtherUse() {
    SimpleLock unlocked = lock(ofSeconds(10), ZERO);
    unlocked.unlock();
    assertThatThrownBy(unlocked::unlock).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> unlocked.extend(ofSeconds(10), ZERO))
        .isInstanceOf(IllegalStateException.class);

    SimpleLock extended = lock(ofSeconds(10), ZERO);
    SimpleLock successor = extended.extend(ofSeconds(10), ofSeconds(9)).orElseThrow();
    assertThatThrownBy(extended::unlock).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> extended.extend(ofSeconds(10), ofSeconds(9)))
        .isInstanceOf(IllegalStateException.class);
    successor.unlock();
  }

  @Test
  void onlyTheHolderTokenFreesTheLease() throws Exception {
    LeaseLock lock = (LeaseLock) lock(ofMinutes(5), ZERO);

    assertThat(contract.release(name, UUID.randomUUID())).isFalse();
    assertThat(status().isHeld()).isTrue();
    assertThat(contract.release(name, lock.lease().holderToken())).isTrue();
    assertThat(status().state()).isEqualTo("free");
  }

  @Test
  void theJobReadsItsLeaseWhileItRuns() {
    LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
    List<LockLease> seen = new ArrayList<>();

    executor.executeWithLock(
        (Runnable) () -> seen.add(WriterFenceLockProvider.current(name).orElseThrow()),
        config(ofMinutes(5), ZERO));

    assertThat(seen).hasSize(1);
    LockLease lease = seen.get(0);
    assertThat(lease.lockName()).isEqualTo(name);
    assertThat(lease.holderLabel()).isEqualTo("job-a@" + HolderLabel.instance());
    assertThat(lease.fencingToken()).isEqualTo(status().fencingToken());
    assertThat(WriterFenceLockProvider.current(name)).as("after the job").isEmpty();
  }

  @Test
  void aLockAndAWriterFenceOfTheSameNameExcludeEachOther() {
    try (WriterFence fence = WriterFence.builder(store).build()) {
      SimpleLock lock = lock(ofMinutes(5), ZERO);
      // A hold of the lock is not a hold of the fence: even on this thread the fence is busy.
      assertThat(fence.tryAcquire(FenceRequest.of(name))).isEmpty();
      lock.unlock();

      FenceLease lease = fence.tryAcquire(FenceRequest.of(name)).orElseThrow();
      assertThat(provider.lock(config(ofMinutes(5), ZERO))).isEmpty();
      assertThat(fence.release(lease)).isTrue();
    }
  }

  @Test
  void badSettingsAreRefusedNamingTheValue() {
    assertThatThrownBy(() -> provider.lock(config(ofSeconds(86_401), ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(name)
        .hasMessageContaining("PT24H1S")
        .hasMessageContaining("at most 1 day");
    assertThatThrownBy(() -> provider.lock(config(" " + name, ofSeconds(5), ZERO)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fence name");
    assertThatThrownBy(() -> new WriterFenceLockProvider(store, "bad\u0000label"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("holder label");
  }

  @Test
  void aLockProviderOnTheDataSourceUsesTheDefaultSchemaAndNamesThisProcess() {
    WriterFenceLockProvider onDataSource = new WriterFenceLockProvider(pool);
    SimpleLock lock = onDataSource.lock(config(ofMinutes(5), ZERO)).orElseThrow();

    assertThat(status().holderLabel())
        .isEqualTo("shedlock@" + HolderLabel.instance())
        .endsWith(":" + ProcessHandle.current().pid());
    lock.unlock();
  }

  /**
   * ShedLock's fuzz test: threads of two jobs each add to a counter that only the lock protects,
   * skipping a turn when the lock is taken; a lost update would leave a count short.
   */
  @Test
  void threadsOfTwoJobsNeverLoseAnUpdate() throws Exception {
    int threads = 8;
    int iterations = 25;
    LockingTaskExecutor executor = new DefaultLockingTaskExecutor(provider);
    int[] counters = new int[2];
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> tasks = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int job = t % 2;
        LockConfiguration lockConfig = config(name + "-" + job, ofMinutes(5), ZERO);
        tasks.add(
            pool.submit(
                () -> {
                  int done[] = {0};
                  while (done[0] < iterations) {
                    executor.executeWithLock(
                        (Runnable)
                            () -> {
                              int n = counters[job];
                              Thread.onSpinWait();
                              counters[job] = n + 1;
                              done[0]++;
                            },
                        lockConfig);
                  }
                  return null;
                }));
      }
      for (Future<?> task : tasks) {
        task.get();
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(counters).containsExactly(threads / 2 * iterations, threads / 2 * iterations);
  }
}
