package dev.writerfence.config;

import dev.writerfence.config.WriterFenceConfiguration.Violation;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStoreProvider;
import dev.writerfence.store.BackendRegistry;
import dev.writerfence.store.lease.PgLeaseStore;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of a {@link WriterFenceConfiguration}'s values, as the catalog states them, judged on
 * bound values (the Spring Boot starter binds them itself): each broken rule becomes a {@link
 * Violation} naming its key.
 */
final class ConfigurationRules {
  /** The smallest {@code advisory.pool-size}: the store's start-up self-check uses two. */
  private static final int MIN_ADVISORY_POOL_SIZE = 2;

  private ConfigurationRules() {}

  static List<Violation> violations(WriterFenceConfiguration c) {
    List<Violation> found = new ArrayList<>();
    check(found, "holder", () -> FenceArguments.holderLabel(c.getHolder()));
    check(found, "ttl", () -> FenceArguments.ttlSeconds(required("ttl", c.getTtl())));
    check(found, "renew-interval", c::renewIntervalDuration);
    check(
        found,
        "query-timeout",
        () -> PgLeaseStore.queryTimeoutSeconds(required("query-timeout", c.getQueryTimeout())));
    boolean backendKnown = check(found, "backend", () -> BackendRegistry.checkName(c.getBackend()));
    check(
        found,
        "advisory.pool-size",
        () -> {
          Integer size = c.getAdvisory().getPoolSize();
          if (size != null && size < MIN_ADVISORY_POOL_SIZE) {
            throw new IllegalArgumentException(
                "writer-fence: advisory-lock pool size "
                    + size
                    + " is not allowed: at least "
                    + MIN_ADVISORY_POOL_SIZE
                    + " (the start-up self-check uses two connections)");
          }
        });
    check(found, SettingsCatalog.ADVISORY_KEY_SCHEME, c.getAdvisory().getKeyScheme());
    WriterFenceConfiguration.LeaseRpc rpc = c.getLeaseRpc();
    check(found, SettingsCatalog.LEASE_RPC_ACQUIRE_FUNCTION, rpc.getAcquireFunction());
    check(found, SettingsCatalog.LEASE_RPC_RELEASE_FUNCTION, rpc.getReleaseFunction());
    check(found, SettingsCatalog.LEASE_RPC_HOLDER_TOKEN_PARAMETER, rpc.getHolderTokenParameter());
    check(found, SettingsCatalog.LEASE_RPC_HOLDER_PARAMETER, rpc.getHolderParameter());
    check(found, SettingsCatalog.LEASE_RPC_TTL_PARAMETER, rpc.getTtlParameter());
    check(found, SettingsCatalog.LEASE_RPC_FENCE_NAME_PARAMETER, rpc.getFenceNameParameter());
    if (backendKnown && found.isEmpty()) {
      // The backend's own rules, across its settings (lease-rpc: no renewal; advisory: at least
      // two connections), once each value passed its own rule.
      LeaseStoreProvider provider = BackendRegistry.provider(c.getBackend());
      check(found, "backend", () -> provider.check(FenceAssembly.storeSettings(c, null)));
    }
    retry(found, c.getRetry());
    check(found, "priority", () -> FenceArguments.priority(c.getPriority()));
    check(
        found,
        "queue.lapse",
        () -> FenceArguments.lapseSeconds(required("queue.lapse", c.getQueue().getLapse())));
    check(
        found,
        "queue.poll-interval",
        () ->
            FenceArguments.queuePollInterval(
                required("queue.poll-interval", c.getQueue().getPollInterval())));
    check(
        found,
        "schema.name",
        () -> FenceSchema.checkIdentifier("schema.name", c.getSchema().getName()));
    dataSource(found, c);
    return List.copyOf(found);
  }

  private static void retry(List<Violation> found, WriterFenceConfiguration.Retry r) {
    check(
        found,
        "retry.max-attempts",
        () -> BusyRetryPolicy.defaults().withMaxAttempts(r.getMaxAttempts()));
    check(
        found,
        "retry.initial-interval",
        () ->
            BusyRetryPolicy.defaults()
                .withInitialInterval(required("retry.initial-interval", r.getInitialInterval())));
    check(
        found,
        "retry.multiplier",
        () -> BusyRetryPolicy.defaults().withMultiplier(r.getMultiplier()));
    if (r.getInitialInterval() != null && r.getInitialInterval().toMillis() >= 1) {
      check(
          found,
          "retry.max-interval",
          () ->
              BusyRetryPolicy.defaults()
                  .withInitialInterval(r.getInitialInterval())
                  .withMaxInterval(required("retry.max-interval", r.getMaxInterval())));
    }
    check(
        found,
        "retry.max-wait",
        () -> {
          if (r.getMaxWait() != null) {
            BusyRetryPolicy.defaults().withMaxWait(r.getMaxWait());
          }
        });
  }

  /**
   * Whether the fence's own pool ({@code datasource.url}) has one connection and no {@code
   * queue.listen-url}: the release listener would hold that one connection while writers wait.
   */
  static boolean poolOfOne(WriterFenceConfiguration c) {
    Integer size = c.getDatasource().getPoolSize();
    return c.getDatasource().getUrl() != null
        && size != null
        && size < 2
        && c.getQueue().getListenUrl() == null;
  }

  private static void dataSource(List<Violation> found, WriterFenceConfiguration c) {
    WriterFenceConfiguration.Datasource ds = c.getDatasource();
    check(
        found,
        "datasource.pool-size",
        () -> {
          Integer size = ds.getPoolSize();
          if (size == null) {
            return;
          }
          SettingsCatalog.DATASOURCE_POOL_SIZE.parse(String.valueOf(size));
          // The release listener holds one connection of the fence's own pool while writers wait.
          // Without queue.listen set, a pool of one polls instead (WriterFenceConfiguration).
          if (poolOfOne(c) && c.getQueue().isListen() && c.getQueue().isListenSet()) {
            throw new IllegalArgumentException(
                "writer-fence: datasource.pool-size '"
                    + size
                    + "' is not allowed with queue.listen=true: at least 2 (the release listener"
                    + " holds one connection while writers wait)");
          }
        });
    check(
        found,
        "queue.listen-url",
        () -> {
          if (c.getQueue().getListenUrl() != null) {
            SettingsCatalog.QUEUE_LISTEN_URL.parse(c.getQueue().getListenUrl());
          }
        });
    check(
        found,
        "datasource.url",
        () -> {
          if (ds.getUrl() != null) {
            SettingsCatalog.DATASOURCE_URL.parse(ds.getUrl());
          }
        });
  }

  private static <T> T required(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException("writer-fence: " + name + " is required");
    }
    return value;
  }

  /** A text setting judged by its catalog rule, when set. */
  private static void check(List<Violation> found, Setting<?> setting, String value) {
    if (value != null) {
      check(found, setting.key(), () -> setting.parse(value));
    }
  }

  private static boolean check(List<Violation> found, String key, Runnable rule) {
    try {
      rule.run();
      return true;
    } catch (IllegalArgumentException e) {
      found.add(new Violation(key, e.getMessage()));
      return false;
    }
  }
}
