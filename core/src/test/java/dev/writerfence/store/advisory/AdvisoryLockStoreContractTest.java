package dev.writerfence.store.advisory;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.LeaseStoreContract;
import dev.writerfence.testing.LeaseStoreOpener;
import dev.writerfence.testing.Pools;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The store contract, run against the advisory-lock backend. */
class AdvisoryLockStoreContractTest extends LeaseStoreContract {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static HikariDataSource pool;
  private static AdvisoryLockStore store;

  @BeforeAll
  static void startStore() {
    pool = Pools.warmPool(DB.jdbcUrl(), "postgres", RACERS + 2);
    store = AdvisoryLockStore.create(pool, RACERS + 2, FenceSchema.DEFAULT_SCHEMA);
  }

  @AfterAll
  static void stopStore() {
    store.close();
    pool.close();
  }

  @AfterEach
  void noSessionKeepsTheLock() {
    assertThat(AdvisoryTestSupport.holdersOf(AdvisoryKeys.keyOf(name))).isZero();
  }

  @Override
  protected LeaseStore store() {
    return store;
  }

  @Override
  protected Class<? extends LeaseStoreOpener> opener() {
    return LeaseStoreOpener.AdvisoryLock.class;
  }

  @Override
  protected String storeUrl() {
    return DB.jdbcUrl();
  }
}
