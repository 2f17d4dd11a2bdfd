package dev.writerfence.config;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.store.rpc.LeaseRpcContract;
import dev.writerfence.store.rpc.LeaseRpcStore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * The settings of the fence that {@link ProcessFence} and the agent build: the {@code
 * writer-fence.*} keys that {@link SettingsCatalog} marks as read by {@link
 * SettingsCatalog.Mode#PROCESS_FENCE}. Every other key of the catalog is accepted and ignored (the
 * agent, the audit or Spring reads it); a key outside the catalog is an error.
 *
 * <p>Durations carry a unit: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601
 * ({@code PT30S}). Immutable.
 */
public final class WriterFenceSettings {
  /** The prefix of system properties: {@code -Dwriter-fence.ttl=30s}. */
  public static final String PREFIX = SettingsCatalog.PREFIX;

  /**
   * Connections of the fence's own pool when {@code datasource.pool-size} is not set: one for each
   * of ten fence names busy at once. Of a name's callers in one process only its holder and the
   * caller whose turn it is send statements (ADR 16, 37), one at a time, so a name needs about one
   * connection; with fewer, the hand-overs of different names wait for each other's statements.
   * Measured with 1,000 callers on 10 names (ADR 45). HikariCP opens them only as calls need them.
   */
  public static final int DEFAULT_POOL_SIZE = 10;

  /** The largest {@code datasource.pool-size}: PostgreSQL's default {@code max_connections}. */
  public static final int MAX_POOL_SIZE = 100;

  private final Map<String, String> values;

  private WriterFenceSettings(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Reads {@code writer-fence.*} entries; other entries are ignored.
   *
   * @param properties for example {@link System#getProperties()}
   * @return the settings
   * @throws IllegalArgumentException naming a key that is not in {@link SettingsCatalog}, and the
   *     known ones
   */
  public static WriterFenceSettings fromProperties(Properties properties) {
    Map<String, String> values = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      String key = name.substring(PREFIX.length());
      if (!SettingsCatalog.isKnown(key)) {
        throw SettingsCatalog.unknown(name, "-D" + PREFIX + "* system properties");
      }
      values.put(key, properties.getProperty(name).strip());
    }
    return new WriterFenceSettings(values);
  }

  /**
   * @param setting a setting of the catalog
   * @return its value as given, if set
   */
  public Optional<String> text(Setting<?> setting) {
    return Optional.ofNullable(values.get(setting.key()));
  }

  /**
   * @param setting a setting of the catalog
   * @param <T> what its values parse to
   * @return its parsed value, if set
   * @throws IllegalArgumentException naming the key, the value and what is allowed
   */
  public <T> Optional<T> get(Setting<T> setting) {
    return text(setting).map(setting::parse);
  }

  /**
   * @return {@code true} when {@code datasource.url} is set
   */
  public boolean hasDataSource() {
    return values.containsKey(SettingsCatalog.DATASOURCE_URL.key());
  }

  /**
   * Builds the data source from {@code datasource.*}: a HikariCP pool of {@code
   * datasource.pool-size} connections (default {@value #DEFAULT_POOL_SIZE}) when HikariCP is on the
   * class path (the agent carries its own copy), otherwise pgjdbc's unpooled {@code
   * PGSimpleDataSource}. Every wait on the database is bounded by {@code query-timeout} (default 10
   * s, rounded up to whole seconds): pgjdbc's {@code connectTimeout} and {@code loginTimeout} are
   * the query timeout and its {@code socketTimeout} the query timeout plus 5 s; HikariCP's {@code
   * connectionTimeout} (the longest a borrow waits for a free connection) is the query timeout and
   * its {@code validationTimeout} half of it. A server that accepts connections and never answers,
   * or a pool whose connections are all in use, thus makes a call unavailable within about the
   * query timeout; the guarded code does not run. The pool starts even while the database is down;
   * each fenced call then fails closed on its own.
   *
   * @return the data source; a HikariCP pool is {@link AutoCloseable}
   * @throws IllegalArgumentException when {@code datasource.url} is missing or not a PostgreSQL
   *     JDBC URL, or {@code datasource.pool-size} or {@code query-timeout} breaks its rule (a pool
   *     of one with {@code queue.listen=true}, whose listener would hold the only connection)
   */
  public DataSource dataSource() {
    listenerPoolSize();
    return DataSources.create(
        url(),
        get(SettingsCatalog.DATASOURCE_USERNAME).orElse(null),
        get(SettingsCatalog.DATASOURCE_PASSWORD).orElse(null),
        poolSize(),
        queryTimeout());
  }

  /**
   * @return {@code datasource.pool-size}, or {@value #DEFAULT_POOL_SIZE} when unset
   * @throws IllegalArgumentException naming the value when it is not a whole number from 1 to
   *     {@value #MAX_POOL_SIZE}
   */
  public int poolSize() {
    return get(SettingsCatalog.DATASOURCE_POOL_SIZE).orElse(DEFAULT_POOL_SIZE);
  }

  /**
   * Checks every setting as {@link #dataSource()} and {@link #buildFence} would, without connecting
   * or building anything, so that a bad value is named at start-up (the agent's premain).
   *
   * @throws IllegalArgumentException naming the first setting whose value breaks its rule, or a
   *     missing {@code datasource.url}
   */
  public void check() {
    url();
    for (Setting<?> setting : SettingsCatalog.readBy(SettingsCatalog.Mode.PROCESS_FENCE)) {
      get(setting);
    }
    retryPolicy();
    advisoryPoolSize();
    listenerPoolSize();
    leaseRpcContract();
  }

  /**
   * With {@code backend=lease-rpc}: the function and parameter names of the {@code lease-rpc.*}
   * settings. A renew interval is refused: the existing pair cannot renew (ADR 57).
   *
   * @return the contract, or {@code null} with another backend
   */
  private LeaseRpcContract leaseRpcContract() {
    if (!"lease-rpc".equals(get(SettingsCatalog.BACKEND).orElse("lease"))) {
      return null;
    }
    Optional<Duration> renew = get(SettingsCatalog.RENEW_INTERVAL);
    if (renew.isPresent() && !renew.get().isZero()) {
      throw new IllegalArgumentException(
          "writer-fence: renew-interval '"
              + SettingsCatalog.text(renew.get())
              + "' is not allowed with backend=lease-rpc: off (the existing acquire takes only a"
              + " free or expired row, so a lease lasts the TTL of its acquire; set ttl to outlast"
              + " the work)");
    }
    return new LeaseRpcContract(
        value(SettingsCatalog.LEASE_RPC_ACQUIRE_FUNCTION),
        value(SettingsCatalog.LEASE_RPC_RELEASE_FUNCTION),
        value(SettingsCatalog.LEASE_RPC_HOLDER_TOKEN_PARAMETER),
        value(SettingsCatalog.LEASE_RPC_HOLDER_PARAMETER),
        value(SettingsCatalog.LEASE_RPC_TTL_PARAMETER),
        get(SettingsCatalog.LEASE_RPC_FENCE_NAME_PARAMETER));
  }

  private <T> T value(Setting<T> setting) {
    return get(setting).orElseGet(() -> setting.parsedDefault().orElseThrow());
  }

  /**
   * With {@code queue.listen=true} the release listener holds one connection of the pool while
   * writers wait: a pool of one would leave none for their polls, and every wait would end
   * unavailable.
   */
  private void listenerPoolSize() {
    Optional<Integer> size = get(SettingsCatalog.DATASOURCE_POOL_SIZE);
    if (size.isPresent() && size.get() < 2 && get(SettingsCatalog.QUEUE_LISTEN).orElse(false)) {
      throw new IllegalArgumentException(
          "writer-fence: datasource.pool-size '"
              + size.get()
              + "' is not allowed with queue.listen=true: at least 2 (the release listener holds"
              + " one connection while writers wait)");
    }
  }

  /**
   * With {@code backend=advisory}: the store's limit, {@code datasource.pool-size} when set (the
   * store then uses as many connections as the pool holds), else {@value
   * AdvisoryLockStore#DEFAULT_POOL_SIZE}; {@code 0} with the lease row.
   */
  private int advisoryPoolSize() {
    if (!"advisory".equals(get(SettingsCatalog.BACKEND).orElse("lease"))) {
      return 0;
    }
    Optional<Integer> size = get(SettingsCatalog.DATASOURCE_POOL_SIZE);
    if (size.isPresent() && size.get() < 2) {
      throw new IllegalArgumentException(
          "writer-fence: datasource.pool-size '"
              + size.get()
              + "' is not allowed with backend=advisory: at least 2 (the store's start-up"
              + " self-check uses two connections)");
    }
    return size.orElse(AdvisoryLockStore.DEFAULT_POOL_SIZE);
  }

  private String url() {
    return get(SettingsCatalog.DATASOURCE_URL)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "writer-fence: setting 'writer-fence.datasource.url' is missing; give a"
                        + " JDBC URL such as jdbc:postgresql://127.0.0.1:5432/app"));
  }

  /**
   * Builds a fence with these settings on {@code dataSource}. With {@code backend=lease} (the
   * default) it uses the lease row; with {@code backend=advisory} an {@link AdvisoryLockStore} of
   * {@code datasource.pool-size} connections (unset: {@value AdvisoryLockStore#DEFAULT_POOL_SIZE})
   * over {@code dataSource}, which must then be the fence's own (as {@link #dataSource()} builds
   * it, a pool of the same size), and which runs its start-up self-check here; with {@code
   * backend=lease-rpc} a {@link LeaseRpcStore} calling the {@code lease-rpc.*} functions, without
   * renewal (ADR 57).
   *
   * @param dataSource where connections come from
   * @return the fence
   * @throws IllegalArgumentException naming the setting whose value breaks its rule (with {@code
   *     backend=advisory}, a {@code datasource.pool-size} below 2; with {@code backend=lease-rpc},
   *     a {@code renew-interval} other than off)
   * @throws IllegalStateException with {@code backend=advisory}, when the self-check finds that
   *     connections share a server session (transaction pooling)
   * @throws dev.writerfence.WriterFenceUnavailableException with {@code backend=advisory}, when the
   *     self-check cannot reach the database
   */
  public WriterFence buildFence(DataSource dataSource) {
    String schema =
        get(SettingsCatalog.SCHEMA).orElse(SettingsCatalog.SCHEMA.parsedDefault().orElseThrow());
    String backend = get(SettingsCatalog.BACKEND).orElse("lease");
    WriterFence.Builder b =
        switch (backend) {
          case "lease" -> WriterFence.builder(dataSource);
          case "advisory" ->
              WriterFence.builder(
                  AdvisoryLockStore.builder(dataSource)
                      .poolSize(advisoryPoolSize())
                      .keyScheme(
                          get(SettingsCatalog.ADVISORY_KEY_SCHEME)
                              .orElse(AdvisoryKeys.DEFAULT_KEY_SCHEME))
                      .schema(schema)
                      .queryTimeout(queryTimeout())
                      .build());
          case "lease-rpc" ->
              WriterFence.builder(new LeaseRpcStore(dataSource, leaseRpcContract(), queryTimeout()))
                  .withoutRenewal();
          default -> throw new IllegalStateException("unreachable: the catalog checked " + backend);
        };
    b.schema(schema);
    get(SettingsCatalog.HOLDER).ifPresent(b::defaultHolderLabel);
    get(SettingsCatalog.TTL).ifPresent(b::defaultTtl);
    get(SettingsCatalog.RENEW_INTERVAL)
        .filter(d -> !"lease-rpc".equals(backend))
        .ifPresent(
            d -> {
              if (d.isZero()) {
                b.withoutRenewal();
              } else {
                b.renewInterval(d);
              }
            });
    get(SettingsCatalog.PRIORITY).ifPresent(b::defaultPriority);
    get(SettingsCatalog.QUEUE_LAPSE).ifPresent(b::queueLapse);
    get(SettingsCatalog.QUEUE_POLL_INTERVAL).ifPresent(b::queuePollInterval);
    get(SettingsCatalog.QUEUE_LISTEN).ifPresent(b::queueListen);
    b.queryTimeout(queryTimeout());
    b.retryPolicy(retryPolicy());
    return b.build();
  }

  /**
   * @return {@code query-timeout}, or {@link WriterFence#DEFAULT_QUERY_TIMEOUT} when unset
   * @throws IllegalArgumentException naming the value when it is not a duration of at least 1 s
   */
  public Duration queryTimeout() {
    return get(SettingsCatalog.QUERY_TIMEOUT).orElse(WriterFence.DEFAULT_QUERY_TIMEOUT);
  }

  /**
   * @return the busy retry policy: the defaults with any {@code retry.*} setting applied ({@code
   *     retry.max-wait} through {@link BusyRetryPolicy#withMaxWait})
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   */
  public BusyRetryPolicy retryPolicy() {
    BusyRetryPolicy p = BusyRetryPolicy.defaults();
    Optional<Integer> attempts = get(SettingsCatalog.RETRY_MAX_ATTEMPTS);
    if (attempts.isPresent()) {
      p = p.withMaxAttempts(attempts.get());
    }
    Optional<Duration> initial = get(SettingsCatalog.RETRY_INITIAL_INTERVAL);
    if (initial.isPresent()) {
      p = p.withInitialInterval(initial.get());
    }
    Optional<Double> multiplier = get(SettingsCatalog.RETRY_MULTIPLIER);
    if (multiplier.isPresent()) {
      p = p.withMultiplier(multiplier.get());
    }
    Optional<Duration> max = get(SettingsCatalog.RETRY_MAX_INTERVAL);
    if (max.isPresent()) {
      p = p.withMaxInterval(max.get());
    }
    Optional<Duration> maxWait = get(SettingsCatalog.RETRY_MAX_WAIT);
    if (maxWait.isPresent()) {
      p = p.withMaxWait(maxWait.get());
    }
    return p;
  }
}
