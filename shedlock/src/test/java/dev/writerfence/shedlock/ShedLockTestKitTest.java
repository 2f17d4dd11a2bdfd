package dev.writerfence.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.LeaseStatus;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.Pools;
import java.sql.SQLException;
import java.time.Duration;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.test.support.AbstractExtensibleLockProviderIntegrationTest;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * ShedLock's own provider test kit ({@code net.javacrumbs.shedlock:shedlock-test-support}), run
 * whole against {@link WriterFenceLockProvider} on the lease row of a real PostgreSQL: every
 * scenario of {@link AbstractExtensibleLockProviderIntegrationTest} and of the class it extends
 * (lock and unlock, busy, independent names, locking again at once, a 50 ms {@code lockAtMostFor}
 * that times out, {@code lockAtLeastFor}, extending once, often, after unlock and after expiry,
 * spent handles) and its fuzz test (8 threads on two locks with a 5 ms {@code lockAtLeastFor}, no
 * increment lost). Sub-second durations are leases of that many milliseconds (ADR 62).
 *
 * <p>Not the kit's {@code AbstractStorageBasedLockProviderIntegrationTest}: it needs ShedLock's
 * {@code StorageBasedLockProvider} class (its one extra test clears that class's in-process cache
 * of inserted lock rows), and this provider keeps no such cache: every lock is one acquire.
 *
 * <p>The kit's lock names ({@code lock1}, {@code lock2}, {@code name2}) are fixed, so the locks
 * live in a schema of this test's own. "Locked" is what operators see: the row is held on the
 * database clock.
 */
class ShedLockTestKitTest extends AbstractExtensibleLockProviderIntegrationTest {
  private static final String SCHEMA = "shedlock_kit";

  private static HikariDataSource pool;
  private static PgLeaseStore store;
  private static WriterFenceLockProvider provider;

  @BeforeAll
  static void start() throws SQLException {
    pool = Pools.warmPool(EmbeddedDatabase.get().jdbcUrl(), "postgres", 10);
    FenceSchema.defaults().schema(SCHEMA).install(pool);
    store = new PgLeaseStore(pool, SCHEMA, Duration.ofSeconds(10));
    provider = new WriterFenceLockProvider(store, "shedlock-kit");
  }

  @AfterAll
  static void stop() {
    pool.close();
  }

  @Override
  protected ExtensibleLockProvider getLockProvider() {
    return provider;
  }

  @Override
  protected void assertLocked(String lockName) {
    assertThat(store.status(lockName))
        .as("lock %s is held", lockName)
        .hasValueSatisfying(row -> assertThat(row.state()).isEqualTo("held"));
  }

  @Override
  protected void assertUnlocked(String lockName) {
    assertThat(store.status(lockName).filter(LeaseStatus::isHeld))
        .as("lock %s is not held", lockName)
        .isEmpty();
  }
}
