package dev.writerfence.store.advisory;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.LeaseStoreContract;
import dev.writerfence.testing.Pools;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The store contract, run against the advisory-lock backend. */
class AdvisoryLockStoreContractTest extends LeaseStoreContract {
  private static HikariDataSource pool;
  private static AdvisoryLockStore store;

  @BeforeAll
  static void startStore() {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    pool = Pools.warmPool(db.jdbcUrl(), "postgres", RACERS + 2);
    store = AdvisoryLockStore.create(pool, RACERS + 2, FenceSchema.DEFAULT_SCHEMA);
  }

  @AfterAll
  static void stopStore() {
    store.close();
    pool.close();
  }

  @Override
  protected LeaseStore store() {
    return store;
  }
}
