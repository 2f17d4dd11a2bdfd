package dev.writerfence.config;

import dev.writerfence.WriterFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.FenceArguments;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.store.lease.PgLeaseStore;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The settings every weaving mode shares, under the names of the design (§7): {@code holder},
 * {@code ttl}, {@code retry.max-attempts}, {@code retry.initial-interval}, {@code
 * retry.multiplier}, {@code retry.max-interval}, {@code backend}, {@code datasource.url}, {@code
 * datasource.username}, {@code datasource.password}, {@code schema}, {@code query-timeout}, {@code
 * renew-interval} (a duration of at least 100 ms, or {@code off}; unset: a third of each lease's
 * TTL).
 *
 * <p>Durations carry a unit: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}, or ISO-8601
 * ({@code PT30S}). Immutable.
 */
public final class WriterFenceSettings {
  /** The prefix of system properties: {@code -Dwriter-fence.ttl=30s}. */
  public static final String PREFIX = "writer-fence.";

  /** The keys read here, without the prefix. */
  public static final Set<String> KEYS =
      Set.of(
          "holder",
          "ttl",
          "retry.max-attempts",
          "retry.initial-interval",
          "retry.multiplier",
          "retry.max-interval",
          "backend",
          "datasource.url",
          "datasource.username",
          "datasource.password",
          "schema",
          "query-timeout",
          "renew-interval");

  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)");

  private final Map<String, String> values;

  private WriterFenceSettings(Map<String, String> values) {
    this.values = values;
  }

  /**
   * Reads {@code writer-fence.*} entries; other entries are ignored.
   *
   * @param properties for example {@link System#getProperties()}
   * @param otherKeys keys (without the prefix) that another part reads, such as the agent's {@code
   *     audit.mode}; any other unknown key is an error
   * @return the settings
   * @throws IllegalArgumentException naming an unknown key and the allowed ones
   */
  public static WriterFenceSettings fromProperties(Properties properties, Set<String> otherKeys) {
    Map<String, String> values = new TreeMap<>();
    for (String name : properties.stringPropertyNames()) {
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      String key = name.substring(PREFIX.length());
      if (!KEYS.contains(key) && !otherKeys.contains(key)) {
        throw new IllegalArgumentException(
            "writer-fence: unknown setting '"
                + name
                + "'; known settings: "
                + new java.util.TreeSet<>(KEYS));
      }
      values.put(key, properties.getProperty(name).trim());
    }
    return new WriterFenceSettings(values);
  }

  /**
   * @param key a key without the prefix
   * @return its value, if set
   */
  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key));
  }

  /**
   * @return {@code true} when {@code datasource.url} is set
   */
  public boolean hasDataSource() {
    return values.containsKey("datasource.url");
  }

  /**
   * Builds the data source from {@code datasource.*}: a small HikariCP pool when HikariCP is on the
   * class path, otherwise pgjdbc's unpooled {@code PGSimpleDataSource}. Every wait on the database
   * is bounded by {@code query-timeout} (default 10 s, rounded up to whole seconds): pgjdbc's
   * {@code connectTimeout} and {@code loginTimeout} are the query timeout and its {@code
   * socketTimeout} the query timeout plus 5 s; HikariCP's {@code connectionTimeout} is the query
   * timeout and its {@code validationTimeout} half of it. A server that accepts connections and
   * never answers thus makes the fence unavailable within about the query timeout. The pool starts
   * even while the database is down; each fenced call then fails closed on its own.
   *
   * @return the data source; a HikariCP pool is {@link AutoCloseable}
   * @throws IllegalArgumentException when {@code datasource.url} is missing or not a PostgreSQL
   *     JDBC URL, or {@code query-timeout} breaks its rule
   */
  public DataSource dataSource() {
    return DataSources.create(
        url(),
        get("datasource.username").orElse(null),
        get("datasource.password").orElse(null),
        queryTimeout());
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
    backend();
    get("schema").ifPresent(v -> FenceSchema.checkIdentifier("schema", v));
    get("holder").ifPresent(FenceArguments::holderLabel);
    get("ttl").ifPresent(v -> FenceArguments.ttlSeconds(duration("ttl", v)));
    get("renew-interval")
        .filter(v -> !"off".equals(v))
        .ifPresent(v -> FenceArguments.renewInterval(duration("renew-interval", v)));
    queryTimeout();
    retryPolicy();
  }

  private String url() {
    String url =
        get("datasource.url")
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "writer-fence: setting 'writer-fence.datasource.url' is missing; give a"
                            + " JDBC URL such as jdbc:postgresql://127.0.0.1:5432/app"));
    if (!url.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "writer-fence: datasource.url '" + url + "' is not allowed: a jdbc:postgresql: URL");
    }
    return url;
  }

  private String backend() {
    String backend = get("backend").orElse("lease");
    if (!backend.equals("lease") && !backend.equals("advisory")) {
      throw new IllegalArgumentException(
          "writer-fence: backend '" + backend + "' is not allowed: lease or advisory");
    }
    return backend;
  }

  /**
   * Builds a fence with these settings on {@code dataSource}. With {@code backend=lease} (the
   * default) it uses the lease row; with {@code backend=advisory} an {@link AdvisoryLockStore} of
   * {@value AdvisoryLockStore#DEFAULT_POOL_SIZE} connections over {@code dataSource}, which must
   * then be the fence's own (as {@link #dataSource()} builds it, a pool of the same size), and
   * which runs its start-up self-check here.
   *
   * @param dataSource where connections come from
   * @return the fence
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   * @throws IllegalStateException with {@code backend=advisory}, when the self-check finds that
   *     connections share a server session (transaction pooling)
   * @throws dev.writerfence.WriterFenceUnavailableException with {@code backend=advisory}, when the
   *     self-check cannot reach the database
   */
  public WriterFence buildFence(DataSource dataSource) {
    WriterFence.Builder b =
        switch (backend()) {
          case "lease" -> WriterFence.builder(dataSource);
          case "advisory" ->
              WriterFence.builder(
                  AdvisoryLockStore.builder(dataSource)
                      .schema(get("schema").orElse(FenceSchema.DEFAULT_SCHEMA))
                      .queryTimeout(queryTimeout())
                      .build());
          default -> throw new IllegalStateException("unreachable: backend() checked it");
        };
    get("schema").ifPresent(v -> b.schema(FenceSchema.checkIdentifier("schema", v)));
    get("holder").ifPresent(v -> b.defaultHolderLabel(FenceArguments.holderLabel(v)));
    get("ttl").ifPresent(v -> b.defaultTtl(duration("ttl", v)));
    get("renew-interval")
        .ifPresent(
            v -> {
              if ("off".equals(v)) {
                b.withoutRenewal();
              } else {
                b.renewInterval(duration("renew-interval", v));
              }
            });
    b.queryTimeout(queryTimeout());
    b.retryPolicy(retryPolicy());
    return b.build();
  }

  /**
   * @return {@code query-timeout}, or {@link WriterFence#DEFAULT_QUERY_TIMEOUT} when unset
   * @throws IllegalArgumentException naming the value when it is not a duration of at least 1 s
   */
  public Duration queryTimeout() {
    Duration timeout =
        get("query-timeout")
            .map(v -> duration("query-timeout", v))
            .orElse(WriterFence.DEFAULT_QUERY_TIMEOUT);
    PgLeaseStore.queryTimeoutSeconds(timeout);
    return timeout;
  }

  /**
   * @return the busy retry policy: the defaults with any {@code retry.*} setting applied
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   */
  public BusyRetryPolicy retryPolicy() {
    BusyRetryPolicy p = BusyRetryPolicy.defaults();
    Optional<String> v = get("retry.max-attempts");
    if (v.isPresent()) {
      p = p.withMaxAttempts(integer("retry.max-attempts", v.get()));
    }
    v = get("retry.initial-interval");
    if (v.isPresent()) {
      p = p.withInitialInterval(duration("retry.initial-interval", v.get()));
    }
    v = get("retry.multiplier");
    if (v.isPresent()) {
      p = p.withMultiplier(decimal("retry.multiplier", v.get()));
    }
    v = get("retry.max-interval");
    if (v.isPresent()) {
      p = p.withMaxInterval(duration("retry.max-interval", v.get()));
    }
    return p;
  }

  /**
   * Parses a duration with a unit.
   *
   * @param key the setting, for the message
   * @param value {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h} or ISO-8601 such as {@code
   *     PT30S}
   * @return the duration
   * @throws IllegalArgumentException naming the key, the value and the accepted forms
   */
  public static Duration duration(String key, String value) {
    Matcher m = DURATION.matcher(value.trim());
    if (m.matches()) {
      long n = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
    }
    try {
      return Duration.parse(value.trim());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "writer-fence: "
              + key
              + " '"
              + value
              + "' is not a duration: write a number with a unit (500ms, 30s, 2m, 1h) or"
              + " ISO-8601 (PT30S)");
    }
  }

  private static int integer(String key, String value) {
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "writer-fence: " + key + " '" + value + "' is not a whole number");
    }
  }

  private static double decimal(String key, String value) {
    try {
      return Double.parseDouble(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "writer-fence: " + key + " '" + value + "' is not a number");
    }
  }
}
