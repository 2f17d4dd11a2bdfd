package dev.writerfence.store.lease;

import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.LeaseStoreProvider;
import dev.writerfence.spi.StoreSettings;

/**
 * Registers the lease row as {@code backend=lease}, the default: a {@link PgLeaseStore} over the
 * fence's DataSource, schema and query timeout.
 */
public final class PgLeaseStoreProvider implements LeaseStoreProvider {
  /** The backend's name. */
  public static final String NAME = "lease";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public LeaseStore create(StoreSettings settings) {
    return new PgLeaseStore(settings.dataSource(), settings.schema(), settings.queryTimeout());
  }
}
