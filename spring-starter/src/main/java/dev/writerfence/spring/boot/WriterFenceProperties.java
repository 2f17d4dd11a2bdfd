package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.store.lease.PgLeaseStore;
import java.time.Duration;
import java.util.Optional;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code writer-fence.*} settings the starter reads, under the names of the core's {@link
 * SettingsCatalog} (which also says which keys only other modes read). Durations take a unit:
 * {@code 500ms}, {@code 30s}, {@code 2m} or ISO-8601.
 *
 * <p>Checked at binding time by the same rules as the core: a bad value stops the start-up with a
 * message naming the property, its value and the rule. The keys are judged by the core's {@link
 * SettingsCatalog}, not by what this class binds: a key of the catalog that only the agent or the
 * process fence reads (the same {@code -Dwriter-fence.*} system properties reach Spring) is
 * accepted and left alone; any other {@code writer-fence.*} key stops the start-up naming it.
 */
@ConfigurationProperties(prefix = WriterFenceProperties.PREFIX)
public class WriterFenceProperties implements Validator, EnvironmentAware {
  /** The prefix of every setting. */
  public static final String PREFIX = "writer-fence";

  /** {@code backend} of the lease row. */
  public static final String LEASE = "lease";

  /** {@code backend} of the advisory-lock backend. */
  public static final String ADVISORY = "advisory";

  /** The smallest {@code advisory.pool-size}: the start-up self-check uses two connections. */
  public static final int MIN_ADVISORY_POOL_SIZE = 2;

  /** Whether to configure the fence, its advice, metrics and endpoint. */
  private boolean enabled = true;

  /**
   * Holder label of fenced calls that set none, shown to operators as {@code LABEL@<host>:<pid>}
   * (observability only). Default {@code <host>:<pid>}. Up to 200 characters, no control or format
   * characters.
   */
  private String holder;

  /**
   * Lease TTL of fenced calls that set none, on the database clock: whole seconds from 1 s to 1
   * day. Default 30 s (the core's default), with renewal on or off. Held leases are renewed in the
   * background, so the TTL bounds how long a crashed holder blocks other writers; with renewal off
   * it must outlast the longest critical section.
   */
  private Duration ttl = WriterFence.DEFAULT_TTL;

  /**
   * How often a held lease is renewed in the background: a duration of at least 100 ms (used at
   * most as a third of a lease's TTL), or "off" for no renewal. Unset: a third of each lease's TTL
   * (10 s with the default TTL). Bound as text so that "off" is accepted; "false", what YAML makes
   * of an unquoted off, means off too.
   */
  private String renewInterval;

  /**
   * How long one statement may take before the database counts as unavailable (the call then fails
   * closed). At least 1 s; rounded up to whole seconds.
   */
  private Duration queryTimeout = Duration.ofSeconds(10);

  /**
   * The backend: {@code lease} (the lease row, exact behind any connection pooler) or {@code
   * advisory} (a PostgreSQL session advisory lock on a pinned connection, freed by the server when
   * that connection drops; refuses to start behind transaction pooling). Every writer of one fence
   * name must use the same backend.
   */
  private String backend = "lease";

  /**
   * Priority in a fence's queue of waiters of fenced calls that set none: -100 to 100, higher
   * first. One level is worth one second of waiting, so a lower priority is still served in bounded
   * time.
   */
  private int priority;

  /** The fence's queue of waiters ({@code writer-fence.queue.*}). */
  private final Queue queue = new Queue();

  /** The advisory-lock backend ({@code writer-fence.advisory.*}), used with backend=advisory. */
  private final Advisory advisory = new Advisory();

  /** Busy retry: how often, and how far apart, a busy acquire is tried again. */
  private final Retry retry = new Retry();

  /** The SQL contract's schema, and whether the application installs it at start-up. */
  private final Schema schema = new Schema();

  /**
   * A database of the fence's own. When {@code url} is unset, the fence uses the application's
   * DataSource (on connections of its own, never one bound to a running transaction).
   */
  private final Datasource datasource = new Datasource();

  /** Spring Boot's task executor and scheduler ({@code writer-fence.task.*}). */
  private final Task task = new Task();

  /** Set by Spring before binding: where the {@code writer-fence.*} keys are judged. */
  private Environment environment;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public String getHolder() {
    return holder;
  }

  public void setHolder(String holder) {
    this.holder = holder;
  }

  public Duration getTtl() {
    return ttl;
  }

  public void setTtl(Duration ttl) {
    this.ttl = ttl;
  }

  public String getRenewInterval() {
    return renewInterval;
  }

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
    String v = renewInterval.trim();
    if ("off".equals(v) || "false".equals(v)) {
      return Optional.of(Duration.ZERO);
    }
    Duration d;
    try {
      d = DurationStyle.detectAndParse(v);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(renewIntervalRule(v, "is not a duration"));
    }
    if (d.compareTo(WriterFence.MIN_RENEW_INTERVAL) < 0) {
      throw new IllegalArgumentException(renewIntervalRule(v, "is not allowed"));
    }
    return Optional.of(d);
  }

  private static String renewIntervalRule(String value, String problem) {
    return "writer-fence: renew-interval '"
        + value
        + "' "
        + problem
        + ": a duration of at least "
        + WriterFence.MIN_RENEW_INTERVAL.toMillis()
        + "ms (such as 10s), or off";
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
    renewIntervalDuration()
        .ifPresent(
            d -> {
              if (d.isZero()) {
                builder.withoutRenewal();
              } else {
                builder.renewInterval(d);
              }
            });
    return builder;
  }

  public Duration getQueryTimeout() {
    return queryTimeout;
  }

  public void setQueryTimeout(Duration queryTimeout) {
    this.queryTimeout = queryTimeout;
  }

  public String getBackend() {
    return backend;
  }

  public void setBackend(String backend) {
    this.backend = backend;
  }

  public Advisory getAdvisory() {
    return advisory;
  }

  public int getPriority() {
    return priority;
  }

  public void setPriority(int priority) {
    this.priority = priority;
  }

  public Queue getQueue() {
    return queue;
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
        .queueListen(queue.listen);
  }

  /**
   * @return {@code true} with {@code backend=advisory}
   */
  public boolean isAdvisory() {
    return ADVISORY.equals(backend);
  }

  public Retry getRetry() {
    return retry;
  }

  public Schema getSchema() {
    return schema;
  }

  public Datasource getDatasource() {
    return datasource;
  }

  public Task getTask() {
    return task;
  }

  /**
   * @return the busy retry policy these settings describe
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   */
  public BusyRetryPolicy busyRetryPolicy() {
    return BusyRetryPolicy.defaults()
        .withMaxAttempts(retry.maxAttempts)
        .withMultiplier(retry.multiplier)
        .withInitialInterval(retry.initialInterval)
        .withMaxInterval(retry.maxInterval)
        .withMaxWait(retry.maxWait);
  }

  @Override
  public boolean supports(Class<?> type) {
    return WriterFenceProperties.class.isAssignableFrom(type);
  }

  @Override
  public void setEnvironment(Environment environment) {
    this.environment = environment;
  }

  @Override
  public void validate(Object target, Errors errors) {
    WriterFenceProperties p = (WriterFenceProperties) target;
    if (p.environment != null) {
      for (String unknown : CatalogKeys.unknownKeys(p.environment)) {
        errors.reject(
            "writer-fence.unknown",
            unknown + ": " + CatalogKeys.whyUnknown(unknown) + " (under " + PREFIX + ".)");
      }
    }
    check(errors, "holder", () -> FenceArguments.holderLabel(p.holder));
    check(errors, "ttl", () -> FenceArguments.ttlSeconds(required("ttl", p.ttl)));
    check(errors, "renewInterval", p::renewIntervalDuration);
    check(
        errors,
        "queryTimeout",
        () -> PgLeaseStore.queryTimeoutSeconds(required("query-timeout", p.queryTimeout)));
    check(
        errors,
        "backend",
        () -> {
          if (!LEASE.equals(p.backend) && !ADVISORY.equals(p.backend)) {
            throw new IllegalArgumentException(
                "writer-fence: backend '"
                    + p.backend
                    + "' is not allowed: lease or advisory (lease-rpc is read by the process fence"
                    + " and the agent; in Spring define a WriterFence bean on a LeaseRpcStore,"
                    + " built withoutRenewal())");
          }
        });
    check(
        errors,
        "advisory.poolSize",
        () -> {
          if (p.advisory.poolSize < MIN_ADVISORY_POOL_SIZE) {
            throw new IllegalArgumentException(
                "writer-fence: advisory-lock pool size "
                    + p.advisory.poolSize
                    + " is not allowed: at least "
                    + MIN_ADVISORY_POOL_SIZE
                    + " (the start-up self-check uses two connections)");
          }
        });
    check(
        errors,
        "retry.maxAttempts",
        () -> BusyRetryPolicy.defaults().withMaxAttempts(p.retry.maxAttempts));
    check(
        errors,
        "retry.initialInterval",
        () ->
            BusyRetryPolicy.defaults()
                .withInitialInterval(required("retry.initial-interval", p.retry.initialInterval)));
    check(
        errors,
        "retry.multiplier",
        () -> BusyRetryPolicy.defaults().withMultiplier(p.retry.multiplier));
    if (p.retry.initialInterval != null && p.retry.initialInterval.toMillis() >= 1) {
      check(
          errors,
          "retry.maxInterval",
          () ->
              BusyRetryPolicy.defaults()
                  .withInitialInterval(p.retry.initialInterval)
                  .withMaxInterval(required("retry.max-interval", p.retry.maxInterval)));
    }
    check(
        errors,
        "retry.maxWait",
        () -> {
          if (p.retry.maxWait != null) {
            BusyRetryPolicy.defaults().withMaxWait(p.retry.maxWait);
          }
        });
    check(errors, "priority", () -> FenceArguments.priority(p.priority));
    check(
        errors,
        "queue.lapse",
        () -> FenceArguments.lapseSeconds(required("queue.lapse", p.queue.lapse)));
    check(
        errors,
        "queue.pollInterval",
        () ->
            FenceArguments.queuePollInterval(
                required("queue.poll-interval", p.queue.pollInterval)));
    check(errors, "schema.name", () -> FenceSchema.checkIdentifier("schema.name", p.schema.name));
    check(
        errors,
        "schema.flyway.table",
        () -> FenceSchema.checkIdentifier("schema.flyway.table", p.schema.flyway.table));
    check(
        errors,
        "datasource.poolSize",
        () -> {
          SettingsCatalog.DATASOURCE_POOL_SIZE.parse(String.valueOf(p.datasource.poolSize));
          if (p.datasource.url != null && p.datasource.poolSize < 2 && p.queue.listen) {
            throw new IllegalArgumentException(
                "writer-fence: datasource.pool-size '"
                    + p.datasource.poolSize
                    + "' is not allowed with queue.listen=true: at least 2 (the release listener"
                    + " holds one connection while writers wait)");
          }
        });
    check(
        errors,
        "datasource.url",
        () -> {
          String url = p.datasource.url;
          if (url != null && !url.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException(
                "writer-fence: datasource.url '"
                    + url
                    + "' is not allowed: a jdbc:postgresql: URL");
          }
        });
  }

  private static <T> T required(String name, T value) {
    if (value == null) {
      throw new IllegalArgumentException("writer-fence: " + name + " is required");
    }
    return value;
  }

  /** Runs one core check; its message (which names the value and the rule) becomes the error. */
  private static void check(Errors errors, String field, Runnable rule) {
    try {
      rule.run();
    } catch (IllegalArgumentException e) {
      String property = PREFIX + "." + dashed(field);
      errors.rejectValue(field, "writer-fence.invalid", property + ": " + e.getMessage());
    }
  }

  static String dashed(String field) {
    return field.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }

  /** Busy retry ({@code writer-fence.retry.*}). */
  public static class Retry {
    /** Acquire attempts in all while the fence is busy, the first included. At least 1. */
    private int maxAttempts = 5;

    /** Wait before the second attempt. At least 1 ms. */
    private Duration initialInterval = Duration.ofMillis(200);

    /** Growth of the wait per attempt (with ±50 % jitter). At least 1.0. */
    private double multiplier = 2.0;

    /** Longest single wait. At least the initial interval. */
    private Duration maxInterval = Duration.ofSeconds(5);

    /**
     * The longest a busy call waits in all (in the fence's queue of waiters and for its turn in
     * this process) before busy is its answer. At least 1 ms. Unset: the attempts' scheduled wait
     * (about 3 s with the defaults).
     */
    private Duration maxWait;

    public int getMaxAttempts() {
      return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
      this.maxAttempts = maxAttempts;
    }

    public Duration getInitialInterval() {
      return initialInterval;
    }

    public void setInitialInterval(Duration initialInterval) {
      this.initialInterval = initialInterval;
    }

    public double getMultiplier() {
      return multiplier;
    }

    public void setMultiplier(double multiplier) {
      this.multiplier = multiplier;
    }

    public Duration getMaxInterval() {
      return maxInterval;
    }

    public void setMaxInterval(Duration maxInterval) {
      this.maxInterval = maxInterval;
    }

    public Duration getMaxWait() {
      return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
      this.maxWait = maxWait;
    }
  }

  /** The fence's queue of waiters ({@code writer-fence.queue.*}). */
  public static class Queue {
    /**
     * How long a waiter's ticket lasts without a poll: a process that stops polling (killed,
     * paused) loses its place after this long. Whole seconds from 1 s to 60 s.
     */
    private Duration lapse = WriterFence.DEFAULT_QUEUE_LAPSE;

    /**
     * How often the head of a fence's queue polls for the lease; waiters further back poll less
     * often. From 1 ms to 1 s.
     */
    private Duration pollInterval = WriterFence.DEFAULT_QUEUE_POLL_INTERVAL;

    /**
     * Whether the head of a fence's queue learns of a release at once by LISTEN, on one more
     * connection while it waits. On a direct connection only: never behind a transaction pooler.
     */
    private boolean listen;

    public boolean isListen() {
      return listen;
    }

    public void setListen(boolean listen) {
      this.listen = listen;
    }

    public Duration getLapse() {
      return lapse;
    }

    public void setLapse(Duration lapse) {
      this.lapse = lapse;
    }

    public Duration getPollInterval() {
      return pollInterval;
    }

    public void setPollInterval(Duration pollInterval) {
      this.pollInterval = pollInterval;
    }
  }

  /** Spring Boot's task executor and scheduler ({@code writer-fence.task.*}). */
  public static class Task {
    /**
     * Whether Spring Boot's task executor (what {@code @Async} methods run on) and task scheduler
     * run each task inside the holds of the code that submitted it, while those leases are valid,
     * through a TaskDecorator bean. On Spring Boot 3.5 an application's own TaskDecorator bean
     * replaces it (Boot 3.5 applies one decorator only); Spring Boot 4 applies both.
     */
    private boolean carryHolds = true;

    public boolean isCarryHolds() {
      return carryHolds;
    }

    public void setCarryHolds(boolean carryHolds) {
      this.carryHolds = carryHolds;
    }
  }

  /** The advisory-lock backend ({@code writer-fence.advisory.*}). */
  public static class Advisory {
    /**
     * Connections the advisory-lock backend uses at most at once: one pinned per fence held, one
     * per acquire attempt in flight. At least 2. A dedicated pool (writer-fence.datasource.url) is
     * grown to one more than this; on the application's DataSource, held fences pin that many of
     * its connections at most.
     */
    private int poolSize = AdvisoryLockStore.DEFAULT_POOL_SIZE;

    /**
     * How a fence name becomes the text whose SHA-256 (first 8 bytes, signed big-endian) is its
     * advisory-lock key: text with {name} at least once and no other placeholder, {{ and }} being
     * literal braces. A method's @WriterFenced(advisoryKey) overrides it.
     */
    private String keyScheme = AdvisoryKeys.DEFAULT_KEY_SCHEME;

    public int getPoolSize() {
      return poolSize;
    }

    public void setPoolSize(int poolSize) {
      this.poolSize = poolSize;
    }

    public String getKeyScheme() {
      return keyScheme;
    }

    public void setKeyScheme(String keyScheme) {
      this.keyScheme = keyScheme;
    }
  }

  /** The SQL contract's schema ({@code writer-fence.schema.*}). */
  public static class Schema {
    /** Schema of the SQL contract: a lower-case SQL identifier. */
    private String name = "writer_fence";

    /**
     * Whether to install (idempotently) the SQL contract at start-up, as the fence's database user,
     * who then owns it. Unset: only for an embedded database, as Spring Boot defines it (which no
     * PostgreSQL server is). In production prefer Flyway with {@code
     * classpath:writer-fence/db/migration}.
     */
    private Boolean initialize;

    /** The contract's own Flyway run ({@code writer-fence.schema.flyway.*}). */
    private final Flyway flyway = new Flyway();

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }

    public Boolean getInitialize() {
      return initialize;
    }

    public void setInitialize(Boolean initialize) {
      this.initialize = initialize;
    }

    public Flyway getFlyway() {
      return flyway;
    }
  }

  /** The SQL contract's own Flyway run ({@code writer-fence.schema.flyway.*}). */
  public static class Flyway {
    /**
     * Whether to migrate the SQL contract with a Flyway run of its own when the application has a
     * Flyway bean: its own history table in the contract's schema, the application's migrations
     * untouched.
     */
    private boolean enabled = true;

    /** History table of the contract's Flyway run, in the contract's schema. */
    private String table = "writer_fence_flyway_history";

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getTable() {
      return table;
    }

    public void setTable(String table) {
      this.table = table;
    }
  }

  /** A database of the fence's own ({@code writer-fence.datasource.*}). */
  public static class Datasource {
    /** JDBC URL of the fence's own database, {@code jdbc:postgresql://...}. */
    private String url;

    /** User of the fence's own database. */
    private String username;

    /** Password of the fence's own database. */
    private String password;

    /**
     * Connections the fence's own pool (writer-fence.datasource.url) opens at most, however many
     * threads call; a call that finds none free within the query timeout is unavailable. From 1 to
     * 100. With backend=advisory the pool is grown to one more than advisory.pool-size.
     */
    private int poolSize = WriterFenceSettings.DEFAULT_POOL_SIZE;

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public int getPoolSize() {
      return poolSize;
    }

    public void setPoolSize(int poolSize) {
      this.poolSize = poolSize;
    }
  }
}
