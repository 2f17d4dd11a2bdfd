package dev.writerfence.store;

import dev.writerfence.spi.LeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.LeaseStoreContract;
import dev.writerfence.testing.LeaseStoreOpener;

/** The store contract, run against the lease-row backend. */
class PgLeaseStoreContractTest extends LeaseStoreContract {
  private static final String URL = EmbeddedDatabase.get().jdbcUrl();
  private static final LeaseStore STORE = new LeaseStoreOpener.LeaseRow().open(URL, RACERS + 2);

  @Override
  protected LeaseStore store() {
    return STORE;
  }

  @Override
  protected Class<? extends LeaseStoreOpener> opener() {
    return LeaseStoreOpener.LeaseRow.class;
  }

  @Override
  protected String storeUrl() {
    return URL;
  }
}
