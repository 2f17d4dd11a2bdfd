package dev.writerfence.testing;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.store.lease.PgLeaseStore;
import java.time.Duration;

/**
 * Opens the store under test of a {@link LeaseStoreContract}, in the test JVM or in a writer
 * process of its own. An implementation needs a public no-argument constructor: the writer process
 * is told its class name.
 */
public interface LeaseStoreOpener {
  /**
   * @param jdbcUrl where the store's database is, for the superuser {@code postgres}
   * @param connections how many threads use the store at once, at least 1
   * @return the store, ready to serve that many threads; it lives as long as the JVM
   */
  LeaseStore open(String jdbcUrl, int connections);

  /** The lease-row backend ({@link PgLeaseStore}) on a warm pool, in the default schema. */
  final class LeaseRow implements LeaseStoreOpener {
    @Override
    public LeaseStore open(String jdbcUrl, int connections) {
      return new PgLeaseStore(
          Pools.warmPool(jdbcUrl, "postgres", connections),
          FenceSchema.DEFAULT_SCHEMA,
          Duration.ofSeconds(10));
    }
  }

  /**
   * The advisory-lock backend ({@link AdvisoryLockStore}) on a warm pool, in the default schema:
   * one connection more than the threads, as each held lock pins one.
   */
  final class AdvisoryLock implements LeaseStoreOpener {
    @Override
    public LeaseStore open(String jdbcUrl, int connections) {
      return AdvisoryLockStore.create(
          Pools.warmPool(jdbcUrl, "postgres", connections + 1),
          connections + 1,
          FenceSchema.DEFAULT_SCHEMA);
    }
  }
}
