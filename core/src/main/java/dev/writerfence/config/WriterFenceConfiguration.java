package dev.writerfence.config;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.LeaseStoreProvider;
import dev.writerfence.store.BackendRegistry;
import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.store.rpc.LeaseRpcContract;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * Every {@code writer-fence.*} setting of the fence, bound to one plain object, and the one place a
 * fence is built from settings: the process fence and the agent fill it from {@code
 * -Dwriter-fence.*} ({@link WriterFenceSettings}), the Spring Boot starter binds it (its {@code
 * WriterFenceProperties} is a subclass that adds the starter's own keys). The keys, their rules and
 * meanings are {@link SettingsCatalog}'s; each property below names its key. The backend is found
 * by name in {@link BackendRegistry}.
 *
 * <p>A new object holds the core's defaults. Setters take any value; {@link #violations()} and
 * {@link #check()} judge them, and building refuses a bad one. Not thread-safe: fill it, then
 * build.
 */
public class WriterFenceConfiguration {
  private String holder;
  private Duration ttl = WriterFence.DEFAULT_TTL;
  private String renewInterval;
  private Duration queryTimeout = WriterFence.DEFAULT_QUERY_TIMEOUT;
  private String backend = BackendRegistry.DEFAULT_BACKEND;
  private int priority;
  private final Queue queue = new Queue();
  private final Retry retry = new Retry();
  private final Advisory advisory = new Advisory();
  private final LeaseRpc leaseRpc = new LeaseRpc();
  private final Schema schema;
  private final Datasource datasource = new Datasource();

  /** The core's defaults. */
  public WriterFenceConfiguration() {
    this(new Schema());
  }

  /**
   * For a subclass whose schema group binds more keys (the Spring Boot starter's).
   *
   * @param schema the schema group, never {@code null}
   */
  protected WriterFenceConfiguration(Schema schema) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema");
  }

  /** Returns {@code holder}: the default holder label, or {@code null} for {@code <host>:<pid>}. */
  public String getHolder() {
    return holder;
  }

  /** Sets {@code holder}. */
  public void setHolder(String holder) {
    this.holder = holder;
  }

  /** Returns {@code ttl}: the default lease TTL. */
  public Duration getTtl() {
    return ttl;
  }

  /** Sets {@code ttl}. */
  public void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  /**
   * Returns {@code renew-interval} as text ({@code off} is allowed), or {@code null} when unset.
   */
  public String getRenewInterval() {
    return renewInterval;
  }

  /**
   * @param renewInterval {@code renew-interval}: a duration, {@code off} (or {@code false}, what
   *     YAML makes of an unquoted off), or {@code null}
   */
  public void setRenewInterval(String renewInterval) {
    this.renewInterval = renewInterval;
  }

  /**
   * Reads {@code renew-interval}.
   *
   * @return empty when unset (a third of each lease's TTL); {@link Duration#ZERO} for {@code off}
   *     (or {@code false}); otherwise the interval
   * @throws IllegalArgumentException naming the value when it is neither {@code off} nor a duration
   *     of at least {@link WriterFence#MIN_RENEW_INTERVAL}
   */
  public Optional<Duration> renewIntervalDuration() {
    if (renewInterval == null || renewInterval.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(SettingsCatalog.RENEW_INTERVAL.parse(renewInterval));
  }

  /** Returns {@code query-timeout}: how long one statement may take. */
  public Duration getQueryTimeout() {
    return queryTimeout;
  }

  /** Sets {@code query-timeout}. */
  public void setQueryTimeout(Duration queryTimeout) {
    this.queryTimeout = queryTimeout;
  }

  /**
   * Returns {@code backend}: the name of a registered backend ({@link BackendRegistry#names()}).
   */
  public String getBackend() {
    return backend;
  }

  /** Sets {@code backend}. */
  public void setBackend(String backend) {
    this.backend = backend;
  }

  /** Returns {@code priority}: the default priority in a fence's queue of waiters. */
  public int getPriority() {
    return priority;
  }

  /** Sets {@code priority}. */
  public void setPriority(int priority) {
    this.priority = priority;
  }

  /** Returns the {@code queue.*} group. */
  public Queue getQueue() {
    return queue;
  }

  /** Returns the {@code retry.*} group. */
  public Retry getRetry() {
    return retry;
  }

  /** Returns the {@code advisory.*} group, read with {@code backend=advisory}. */
  public Advisory getAdvisory() {
    return advisory;
  }

  /** Returns the {@code lease-rpc.*} group, read with {@code backend=lease-rpc}. */
  public LeaseRpc getLeaseRpc() {
    return leaseRpc;
  }

  /** Returns the schema group: {@code schema.name} (the process fence's {@code schema}). */
  public Schema getSchema() {
    return schema;
  }

  /** Returns the {@code datasource.*} group: a database of the fence's own. */
  public Datasource getDatasource() {
    return datasource;
  }

  /**
   * @return the busy retry policy the {@code retry.*} settings describe
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   */
  public BusyRetryPolicy busyRetryPolicy() {
    BusyRetryPolicy p =
        BusyRetryPolicy.defaults()
            .withMaxAttempts(retry.maxAttempts)
            .withMultiplier(retry.multiplier)
            .withInitialInterval(retry.initialInterval)
            .withMaxInterval(retry.maxInterval);
    return retry.maxWait == null ? p : p.withMaxWait(retry.maxWait);
  }

  /**
   * Applies {@code renew-interval} to a builder: unset leaves the core's default (a third of each
   * lease's TTL), {@code off} turns renewal off.
   *
   * @param builder the fence's builder
   * @return the builder
   * @throws IllegalArgumentException naming the value when it breaks the rule
   */
  public WriterFence.Builder applyRenewInterval(WriterFence.Builder builder) {
    renewIntervalDuration().ifPresent(d -> FenceAssembly.renewInterval(builder, d));
    return builder;
  }

  /**
   * Applies {@code priority} and {@code queue.*} to a builder.
   *
   * @param builder the fence's builder
   * @return the builder
   * @throws IllegalArgumentException naming the value when one breaks its rule
   */
  public WriterFence.Builder applyQueue(WriterFence.Builder builder) {
    return builder
        .defaultPriority(priority)
        .queueLapse(queue.lapse)
        .queuePollInterval(queue.pollInterval)
        .queueListen(
            queue.isListen() && (queue.isListenSet() || !ConfigurationRules.poolOfOne(this)))
        .queueListenUrl(queue.getListenUrl(), datasource.getUsername(), datasource.getPassword())
        .queueBusyEarly(queue.busyEarly);
  }

  /**
   * @return the registered backend {@link #getBackend()} names
   * @throws IllegalArgumentException naming the value and the registered names when none is
   *     registered under it
   */
  public LeaseStoreProvider provider() {
    return BackendRegistry.provider(backend);
  }

  /**
   * Builds the backend's store over {@code dataSource}, through its registered provider. The caller
   * closes it ({@link LeaseStore#close()}) after the fences on it.
   *
   * @param dataSource where the store's connections come from: connections of their own, never one
   *     bound to a caller's open transaction
   * @return the store
   * @throws IllegalArgumentException naming the setting whose value breaks its rule, or an unknown
   *     backend and the registered names
   * @throws RuntimeException a start-up check of the backend's own (the advisory backend's
   *     self-check: {@link IllegalStateException} behind transaction pooling, {@link
   *     dev.writerfence.WriterFenceUnavailableException} when the database cannot be reached)
   */
  public LeaseStore createStore(DataSource dataSource) {
    return provider().create(FenceAssembly.storeSettings(this, dataSource));
  }

  /**
   * A builder for a fence on {@code store} with every setting applied: schema, holder, TTL, renew
   * interval (off when the store cannot renew), priority, queue, query timeout and busy retry. The
   * caller may add a listener or replace the retry policy before {@code build()}.
   *
   * @param store the fence's store, such as {@link #createStore}'s
   * @return the builder
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   */
  public WriterFence.Builder builder(LeaseStore store) {
    return FenceAssembly.builder(this, store);
  }

  /**
   * Builds a fence with these settings on {@code dataSource}: the backend's store ({@link
   * #createStore}), then {@link #builder}. With {@code backend=advisory} the store runs its
   * start-up self-check here.
   *
   * @param dataSource where connections come from
   * @return the fence; its store is not closed with it
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   * @throws RuntimeException a start-up check of the backend's own, as {@link #createStore}
   */
  public WriterFence buildFence(DataSource dataSource) {
    return builder(createStore(dataSource)).build();
  }

  /**
   * Builds the fence's own data source from {@code datasource.*}: a HikariCP pool of {@code
   * datasource.pool-size} connections (default {@value WriterFenceSettings#DEFAULT_POOL_SIZE}) when
   * HikariCP is on the class path, otherwise pgjdbc's unpooled data source; every wait bounded by
   * the query timeout ({@link WriterFenceSettings#dataSource()} says how).
   *
   * @return the data source; a HikariCP pool is {@link AutoCloseable}
   * @throws IllegalArgumentException when {@code datasource.url} is missing or a setting breaks its
   *     rule
   */
  public DataSource dataSource() {
    check("datasource.url", "datasource.pool-size", "query-timeout");
    if (datasource.url == null) {
      throw new IllegalArgumentException(
          "writer-fence: setting 'writer-fence.datasource.url' is missing; give a"
              + " JDBC URL such as jdbc:postgresql://127.0.0.1:5432/app");
    }
    return DataSources.create(
        datasource.url,
        datasource.username,
        datasource.password,
        datasource.poolSizeOrDefault(),
        queryTimeout);
  }

  /**
   * Judges every value by its rule, and the backend's own settings by its provider, without
   * connecting or building anything.
   *
   * @return the broken rules in the catalog's order, each naming its key (without the prefix) and
   *     the value; empty when every value is allowed
   */
  public List<Violation> violations() {
    return ConfigurationRules.violations(this);
  }

  /**
   * @throws IllegalArgumentException with the message of the first of {@link #violations()}
   */
  public void check() {
    List<Violation> found = violations();
    if (!found.isEmpty()) {
      throw new IllegalArgumentException(found.get(0).message());
    }
  }

  private void check(String... keys) {
    List<String> wanted = List.of(keys);
    for (Violation v : violations()) {
      if (wanted.contains(v.key())) {
        throw new IllegalArgumentException(v.message());
      }
    }
  }

  /**
   * A broken rule.
   *
   * @param key the setting without the prefix, such as {@code retry.max-attempts}
   * @param message what is wrong: the value and what is allowed, starting {@code writer-fence: }
   */
  public record Violation(String key, String message) {}

  /** The fence's queue of waiters ({@code writer-fence.queue.*}). */
  public static class Queue extends QueueListening {
    private Duration lapse = WriterFence.DEFAULT_QUEUE_LAPSE;
    private Duration pollInterval = WriterFence.DEFAULT_QUEUE_POLL_INTERVAL;
    private boolean busyEarly;

    /** Returns {@code queue.lapse}. */
    public Duration getLapse() {
      return lapse;
    }

    /** Sets {@code queue.lapse}. */
    public void setLapse(Duration lapse) {
      this.lapse = lapse;
    }

    /** Returns {@code queue.poll-interval}. */
    public Duration getPollInterval() {
      return pollInterval;
    }

    /** Sets {@code queue.poll-interval}. */
    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }

    /** Returns {@code queue.busy-early}. */
    public boolean isBusyEarly() {
      return busyEarly;
    }

    /** Sets {@code queue.busy-early}. */
    public void setBusyEarly(boolean busyEarly) {
      this.busyEarly = busyEarly;
    }
  }

  /** Busy retry ({@code writer-fence.retry.*}); defaults of {@link BusyRetryPolicy#defaults()}. */
  public static class Retry {
    private int maxAttempts = BusyRetryPolicy.defaults().maxAttempts();
    private Duration initialInterval = BusyRetryPolicy.defaults().initialInterval();
    private double multiplier = BusyRetryPolicy.defaults().multiplier();
    private Duration maxInterval = BusyRetryPolicy.defaults().maxInterval();
    private Duration maxWait;

    /** Returns {@code retry.max-attempts}. */
    public int getMaxAttempts() {
      return maxAttempts;
    }

    /** Sets {@code retry.max-attempts}. */
    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    /** Returns {@code retry.initial-interval}. */
    public Duration getInitialInterval() {
      return initialInterval;
    }

    /** Sets {@code retry.initial-interval}. */
    public void setInitialInterval(Duration initialInterval) {
      this.initialInterval = initialInterval;
    }

    /** Returns {@code retry.multiplier}. */
    public double getMultiplier() {
      return multiplier;
    }

    /** Sets {@code retry.multiplier}. */
    public void setMultiplier(double multiplier) {
      this.multiplier = multiplier;
    }

    /** Returns {@code retry.max-interval}. */
    public Duration getMaxInterval() {
      return maxInterval;
    }

    /** Sets {@code retry.max-interval}. */
    public void setMaxInterval(Duration maxInterval) {
      this.maxInterval = maxInterval;
    }

    /** Returns {@code retry.max-wait}, or {@code null} for the attempts' scheduled wait. */
    public Duration getMaxWait() {
      return maxWait;
    }

    /** Sets {@code retry.max-wait}, or {@code null}. */
    public void setMaxWait(Duration maxWait) {
      this.maxWait = maxWait;
    }
  }

  /** The advisory-lock backend ({@code writer-fence.advisory.*}), read with backend=advisory. */
  public static class Advisory {
    private Integer poolSize;
    private String keyScheme = AdvisoryKeys.DEFAULT_KEY_SCHEME;

    /**
     * @return {@code advisory.pool-size}, or {@code null}: then {@code datasource.pool-size} when
     *     set, else the store's default
     */
    public Integer getPoolSize() {
      return poolSize;
    }

    /** Sets {@code advisory.pool-size}, or {@code null}. */
    public void setPoolSize(Integer poolSize) {
      this.poolSize = poolSize;
    }

    /** Returns {@code advisory.key-scheme}. */
    public String getKeyScheme() {
      return keyScheme;
    }

    /** Sets {@code advisory.key-scheme}. */
    public void setKeyScheme(String keyScheme) {
      this.keyScheme = keyScheme;
    }
  }

  /** An existing deployment's lease-RPC pair ({@code writer-fence.lease-rpc.*}). */
  public static class LeaseRpc {
    private String acquireFunction = LeaseRpcContract.DEFAULT_ACQUIRE_FUNCTION;
    private String releaseFunction = LeaseRpcContract.DEFAULT_RELEASE_FUNCTION;
    private String holderTokenParameter = LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER;
    private String holderParameter = LeaseRpcContract.DEFAULT_HOLDER_PARAMETER;
    private String ttlParameter = LeaseRpcContract.DEFAULT_TTL_PARAMETER;
    private String fenceNameParameter;

    /** Returns {@code lease-rpc.acquire-function}. */
    public String getAcquireFunction() {
      return acquireFunction;
    }

    /** Sets {@code lease-rpc.acquire-function}. */
    public void setAcquireFunction(String acquireFunction) {
      this.acquireFunction = acquireFunction;
    }

    /** Returns {@code lease-rpc.release-function}. */
    public String getReleaseFunction() {
      return releaseFunction;
    }

    /** Sets {@code lease-rpc.release-function}. */
    public void setReleaseFunction(String releaseFunction) {
      this.releaseFunction = releaseFunction;
    }

    /** Returns {@code lease-rpc.holder-token-parameter}. */
    public String getHolderTokenParameter() {
      return holderTokenParameter;
    }

    /** Sets {@code lease-rpc.holder-token-parameter}. */
    public void setHolderTokenParameter(String holderTokenParameter) {
      this.holderTokenParameter = holderTokenParameter;
    }

    /** Returns {@code lease-rpc.holder-parameter}. */
    public String getHolderParameter() {
      return holderParameter;
    }

    /** Sets {@code lease-rpc.holder-parameter}. */
    public void setHolderParameter(String holderParameter) {
      this.holderParameter = holderParameter;
    }

    /** Returns {@code lease-rpc.ttl-parameter}. */
    public String getTtlParameter() {
      return ttlParameter;
    }

    /** Sets {@code lease-rpc.ttl-parameter}. */
    public void setTtlParameter(String ttlParameter) {
      this.ttlParameter = ttlParameter;
    }

    /** Returns {@code lease-rpc.fence-name-parameter}, or {@code null}: no fence name is passed. */
    public String getFenceNameParameter() {
      return fenceNameParameter;
    }

    /** Sets {@code lease-rpc.fence-name-parameter}, or {@code null}. */
    public void setFenceNameParameter(String fenceNameParameter) {
      this.fenceNameParameter = fenceNameParameter;
    }
  }

  /** The SQL contract's schema. */
  public static class Schema {
    private String name = FenceSchema.DEFAULT_SCHEMA;

    /** Returns {@code schema.name} (the process fence's {@code schema}). */
    public String getName() {
      return name;
    }

    /** Sets {@code schema.name}. */
    public void setName(String name) {
      this.name = name;
    }
  }

  /** A database of the fence's own ({@code writer-fence.datasource.*}). */
  public static class Datasource {
    private String url;
    private String username;
    private String password;
    private Integer poolSize;

    /** Returns {@code datasource.url}, or {@code null}: the application's DataSource. */
    public String getUrl() {
      return url;
    }

    /** Sets {@code datasource.url}. */
    public void setUrl(String url) {
      this.url = url;
    }

    /** Returns {@code datasource.username}, or {@code null}. */
    public String getUsername() {
      return username;
    }

    /** Sets {@code datasource.username}. */
    public void setUsername(String username) {
      this.username = username;
    }

    /** Returns {@code datasource.password}, or {@code null}. */
    public String getPassword() {
      return password;
    }

    /** Sets {@code datasource.password}. */
    public void setPassword(String password) {
      this.password = password;
    }

    /**
     * @return {@code datasource.pool-size}, or {@code null} for {@value
     *     WriterFenceSettings#DEFAULT_POOL_SIZE}
     */
    public Integer getPoolSize() {
      return poolSize;
    }

    /** Sets {@code datasource.pool-size}, or {@code null}. */
    public void setPoolSize(Integer poolSize) {
      this.poolSize = poolSize;
    }

    /**
     * @return {@code datasource.pool-size}, or {@value WriterFenceSettings#DEFAULT_POOL_SIZE} when
     *     unset
     */
    public int poolSizeOrDefault() {
      return poolSize != null ? poolSize : WriterFenceSettings.DEFAULT_POOL_SIZE;
    }
  }
}
