package dev.writerfence.config;

import static dev.writerfence.internal.config.SettingsCatalog.*;

import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Which property of {@link WriterFenceConfiguration} each setting of the catalog is: the one table
 * that fills the configuration from text ({@link WriterFenceSettings}) and reads its values back as
 * text (for a backend's provider). The keys, rules and defaults stay the catalog's.
 */
final class SettingBindings {
  private record Binding<T>(
      Setting<T> setting,
      BiConsumer<WriterFenceConfiguration, T> set,
      Function<WriterFenceConfiguration, Object> get) {
    void fill(WriterFenceConfiguration c, String text) {
      set.accept(c, setting.parse(text));
    }
  }

  private static <T> Binding<T> bind(
      Setting<T> setting,
      BiConsumer<WriterFenceConfiguration, T> set,
      Function<WriterFenceConfiguration, Object> get) {
    return new Binding<>(setting, set, get);
  }

  private static final List<Binding<?>> ALL =
      List.of(
          bind(
              DATASOURCE_URL,
              (c, v) -> c.getDatasource().setUrl(v),
              c -> c.getDatasource().getUrl()),
          bind(
              DATASOURCE_USERNAME,
              (c, v) -> c.getDatasource().setUsername(v),
              c -> c.getDatasource().getUsername()),
          bind(
              DATASOURCE_PASSWORD,
              (c, v) -> c.getDatasource().setPassword(v),
              c -> c.getDatasource().getPassword()),
          bind(
              DATASOURCE_POOL_SIZE,
              (c, v) -> c.getDatasource().setPoolSize(v),
              c -> c.getDatasource().getPoolSize()),
          bind(SCHEMA, (c, v) -> c.getSchema().setName(v), c -> c.getSchema().getName()),
          bind(SCHEMA_NAME, (c, v) -> c.getSchema().setName(v), c -> c.getSchema().getName()),
          bind(HOLDER, WriterFenceConfiguration::setHolder, WriterFenceConfiguration::getHolder),
          bind(TTL, WriterFenceConfiguration::setTtl, WriterFenceConfiguration::getTtl),
          bind(
              RENEW_INTERVAL,
              (c, v) -> c.setRenewInterval(v.isZero() ? "off" : SettingsCatalog.text(v)),
              WriterFenceConfiguration::getRenewInterval),
          bind(
              RETRY_MAX_ATTEMPTS,
              (c, v) -> c.getRetry().setMaxAttempts(v),
              c -> c.getRetry().getMaxAttempts()),
          bind(
              RETRY_INITIAL_INTERVAL,
              (c, v) -> c.getRetry().setInitialInterval(v),
              c -> c.getRetry().getInitialInterval()),
          bind(
              RETRY_MULTIPLIER,
              (c, v) -> c.getRetry().setMultiplier(v),
              c -> c.getRetry().getMultiplier()),
          bind(
              RETRY_MAX_INTERVAL,
              (c, v) -> c.getRetry().setMaxInterval(v),
              c -> c.getRetry().getMaxInterval()),
          bind(
              RETRY_MAX_WAIT, (c, v) -> c.getRetry().setMaxWait(v), c -> c.getRetry().getMaxWait()),
          bind(
              PRIORITY,
              WriterFenceConfiguration::setPriority,
              WriterFenceConfiguration::getPriority),
          bind(QUEUE_LAPSE, (c, v) -> c.getQueue().setLapse(v), c -> c.getQueue().getLapse()),
          bind(
              QUEUE_POLL_INTERVAL,
              (c, v) -> c.getQueue().setPollInterval(v),
              c -> c.getQueue().getPollInterval()),
          bind(QUEUE_LISTEN, (c, v) -> c.getQueue().setListen(v), c -> c.getQueue().isListen()),
          bind(
              QUEUE_BUSY_EARLY,
              (c, v) -> c.getQueue().setBusyEarly(v),
              c -> c.getQueue().isBusyEarly()),
          bind(
              QUEUE_LISTEN_URL,
              (c, v) -> c.getQueue().setListenUrl(v),
              c -> c.getQueue().getListenUrl()),
          bind(BACKEND, WriterFenceConfiguration::setBackend, WriterFenceConfiguration::getBackend),
          bind(
              ADVISORY_POOL_SIZE,
              (c, v) -> c.getAdvisory().setPoolSize(v),
              c -> c.getAdvisory().getPoolSize()),
          bind(
              ADVISORY_KEY_SCHEME,
              (c, v) -> c.getAdvisory().setKeyScheme(v),
              c -> c.getAdvisory().getKeyScheme()),
          bind(
              LEASE_RPC_ACQUIRE_FUNCTION,
              (c, v) -> c.getLeaseRpc().setAcquireFunction(v),
              c -> c.getLeaseRpc().getAcquireFunction()),
          bind(
              LEASE_RPC_RELEASE_FUNCTION,
              (c, v) -> c.getLeaseRpc().setReleaseFunction(v),
              c -> c.getLeaseRpc().getReleaseFunction()),
          bind(
              LEASE_RPC_HOLDER_TOKEN_PARAMETER,
              (c, v) -> c.getLeaseRpc().setHolderTokenParameter(v),
              c -> c.getLeaseRpc().getHolderTokenParameter()),
          bind(
              LEASE_RPC_HOLDER_PARAMETER,
              (c, v) -> c.getLeaseRpc().setHolderParameter(v),
              c -> c.getLeaseRpc().getHolderParameter()),
          bind(
              LEASE_RPC_TTL_PARAMETER,
              (c, v) -> c.getLeaseRpc().setTtlParameter(v),
              c -> c.getLeaseRpc().getTtlParameter()),
          bind(
              LEASE_RPC_FENCE_NAME_PARAMETER,
              (c, v) -> c.getLeaseRpc().setFenceNameParameter(v),
              c -> c.getLeaseRpc().getFenceNameParameter()),
          bind(
              QUERY_TIMEOUT,
              WriterFenceConfiguration::setQueryTimeout,
              WriterFenceConfiguration::getQueryTimeout));

  private SettingBindings() {}

  /**
   * Fills {@code c} with the settings {@code mode} reads, each parsed by the catalog's rule.
   *
   * @param values bare keys to their text
   * @throws IllegalArgumentException naming the first key whose value breaks its rule
   */
  static void fill(
      WriterFenceConfiguration c, Map<String, String> values, SettingsCatalog.Mode mode) {
    for (Binding<?> b : ALL) {
      String text = values.get(b.setting().key());
      if (text != null && b.setting().isReadBy(mode)) {
        b.fill(c, text);
      }
    }
  }

  /**
   * @param key a bare key of the catalog
   * @return the configuration's value of it as the catalog writes it; empty when unset, or when no
   *     property binds the key
   */
  static Optional<String> text(WriterFenceConfiguration c, String key) {
    for (Binding<?> b : ALL) {
      if (b.setting().key().equals(key)) {
        Object v = b.get().apply(c);
        return Optional.ofNullable(v)
            .map(o -> o instanceof Duration d ? SettingsCatalog.text(d) : String.valueOf(o));
      }
    }
    return Optional.empty();
  }

  /**
   * @return the catalog's settings a {@link WriterFenceConfiguration} property binds
   */
  static List<Setting<?>> bound() {
    return ALL.stream().<Setting<?>>map(Binding::setting).toList();
  }
}
