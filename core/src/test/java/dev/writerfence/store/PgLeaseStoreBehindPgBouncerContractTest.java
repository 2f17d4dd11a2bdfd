package dev.writerfence.store;

import dev.writerfence.spi.LeaseStore;
import dev.writerfence.testing.LeaseStoreContract;
import dev.writerfence.testing.LeaseStoreOpener;
import dev.writerfence.testing.PgBouncerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The store contract, run against the lease-row backend behind PgBouncer in transaction pooling
 * mode, where clients share server sessions: the lease row holds no session state, so every promise
 * stands. Needs {@code pgbouncer} on the PATH (skipped without it, failed without it when {@code
 * CI=true}).
 */
class PgLeaseStoreBehindPgBouncerContractTest extends LeaseStoreContract {
  /** Fewer server connections than clients: sessions are shared. */
  @RegisterExtension
  static final PgBouncerExtension BOUNCER = new PgBouncerExtension("transaction", 3);

  private static LeaseStore store;

  @BeforeAll
  static void openStore() {
    if (PgBouncerExtension.installed()) {
      store = new LeaseStoreOpener.LeaseRow().open(BOUNCER.get().jdbcUrl(), RACERS + 2);
    }
  }

  @Override
  protected LeaseStore store() {
    return store;
  }

  @Override
  protected Class<? extends LeaseStoreOpener> opener() {
    return LeaseStoreOpener.LeaseRow.class;
  }

  @Override
  protected String storeUrl() {
    return BOUNCER.get().jdbcUrl();
  }
}
