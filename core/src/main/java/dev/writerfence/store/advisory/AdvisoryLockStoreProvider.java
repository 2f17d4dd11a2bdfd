package dev.writerfence.store.advisory;

import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.LeaseStoreProvider;
import dev.writerfence.spi.StoreSettings;
import java.util.Optional;

/**
 * Registers the advisory-lock backend as {@code backend=advisory}: an {@link AdvisoryLockStore}
 * over the fence's DataSource, which runs its start-up self-check when built.
 *
 * <p>Its limit of connections in use at once is {@code advisory.pool-size} when set (the Spring
 * Boot starter always sets it), else {@code datasource.pool-size} when set (the store then uses as
 * many connections as the fence's own pool holds), else {@value
 * AdvisoryLockStore#DEFAULT_POOL_SIZE}.
 */
public final class AdvisoryLockStoreProvider implements LeaseStoreProvider {
  /** The backend's name. */
  public static final String NAME = "advisory";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void check(StoreSettings settings) {
    poolSize(settings);
  }

  @Override
  public LeaseStore create(StoreSettings settings) {
    return AdvisoryLockStore.builder(settings.dataSource())
        .poolSize(poolSize(settings))
        .keyScheme(settings.text("advisory.key-scheme").orElse(AdvisoryKeys.DEFAULT_KEY_SCHEME))
        .schema(settings.schema())
        .queryTimeout(settings.queryTimeout())
        .build();
  }

  /**
   * @throws IllegalArgumentException when the limit comes from a {@code datasource.pool-size} below
   *     2 (an {@code advisory.pool-size} below 2 is refused by its own rule)
   */
  private static int poolSize(StoreSettings settings) {
    Optional<String> own = settings.text("advisory.pool-size");
    if (own.isPresent()) {
      return Integer.parseInt(own.get());
    }
    Optional<String> pool = settings.text("datasource.pool-size");
    if (pool.isEmpty()) {
      return AdvisoryLockStore.DEFAULT_POOL_SIZE;
    }
    int size = Integer.parseInt(pool.get());
    if (size < 2) {
      throw new IllegalArgumentException(
          "writer-fence: datasource.pool-size '"
              + size
              + "' is not allowed with backend=advisory: at least 2 (the store's start-up"
              + " self-check uses two connections)");
    }
    return size;
  }
}
