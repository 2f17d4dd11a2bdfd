package dev.writerfence.store;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.LeaseStoreContract;
import java.time.Duration;

/** The store contract, run against the lease-row backend. */
class PgLeaseStoreContractTest extends LeaseStoreContract {
  private static final PgLeaseStore STORE =
      new PgLeaseStore(
          EmbeddedDatabase.get().dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(10));

  @Override
  protected LeaseStore store() {
    return STORE;
  }
}
