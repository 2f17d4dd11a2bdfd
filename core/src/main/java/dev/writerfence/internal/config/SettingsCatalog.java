package dev.writerfence.internal.config;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.internal.config.Setting.Kind;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.BackendRegistry;
import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.store.rpc.LeaseRpcContract;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Every {@code writer-fence.*} setting of every mode, defined once: key, kind, default, allowed
 * values, which modes read it, and what it means. The process fence ({@link ProcessFence}, through
 * {@link WriterFenceSettings}), the agent's fence and audit, and the Spring Boot starter read their
 * settings from here or are checked against it by tests, and so are docs/configuration.md's table
 * and the starter's configuration metadata.
 *
 * <p>One rule holds across modes: a key of this catalog is never an error in any mode, also in a
 * mode that does not read it (one JVM may run the agent, the AspectJ aspect and Spring, all seeing
 * the same {@code -Dwriter-fence.*} system properties). A key outside it is an error in every mode
 * (ADR 23).
 */
public final class SettingsCatalog {
  /** The prefix of system properties and Spring properties: {@code -Dwriter-fence.ttl=30s}. */
  public static final String PREFIX = "writer-fence.";

  /** Who reads a setting. */
  public enum Mode {
    /**
     * {@link ProcessFence#get()}: the fence the AspectJ aspect uses when none was set, built from
     * system properties.
     */
    PROCESS_FENCE("process fence"),
    /** The {@code -javaagent}'s fenced methods ({@code fence.methods}, unwoven annotations). */
    AGENT_FENCE("agent fence"),
    /** The {@code -javaagent}'s audit of unfenced storage writes. */
    AGENT_AUDIT("agent audit"),
    /** The Spring Boot starter ({@code WriterFenceProperties}). */
    SPRING("Spring"),
    /** The {@code ./writer-fence} command line (its own JVM). */
    CLI("CLI");

    private final String label;

    Mode(String label) {
      this.label = label;
    }

    /**
     * @return the mode's name as the configuration page shows it
     */
    public String label() {
      return label;
    }
  }

  private static final Mode PROCESS = Mode.PROCESS_FENCE;
  private static final Mode AGENT = Mode.AGENT_FENCE;
  private static final Mode AUDIT = Mode.AGENT_AUDIT;
  private static final Mode SPRING = Mode.SPRING;
  private static final Mode CLI = Mode.CLI;
  private static final String DURATION_FORMS =
      "write a number with a unit (500ms, 30s, 2m, 1h) or ISO-8601 (PT30S)";
  private static final Pattern DURATION = Pattern.compile("(\\d{1,12})\\s*(ms|s|m|h)");
  private static final BusyRetryPolicy RETRY = BusyRetryPolicy.defaults();

  /**
   * The ids of the storage clients the agent audits, in the order the agent installs them: the keys
   * {@code audit.require-fence.<id>} accept, and the client ids of the audit's reports. They are
   * listed here, not found, because Spring and the process fence refuse an unknown key in a JVM
   * that may have no agent. The agent's audits are registered units of their own (a {@code
   * ServiceLoader} of the agent); each carries one of these ids, and the agent refuses to start
   * when its registered audits and this list differ, so a new client is added in both places or not
   * at all.
   */
  public static final List<String> AUDIT_CLIENTS =
      List.of("aws-s3-v2", "aws-s3-v1", "minio", "gcs", "azure-blob", "file", "lmdb", "rocksdb");

  /** {@code datasource.url}: where the lease table lives. */
  public static final Setting<String> DATASOURCE_URL =
      Setting.builder("datasource.url", Kind.TEXT, v -> jdbcUrl("datasource.url", v))
          .readBy(PROCESS, AGENT, SPRING)
          .allowed("a jdbc:postgresql: URL")
          .example("jdbc:postgresql://127.0.0.1:5432/postgres")
          .javaApi("builder(dataSource)")
          .meaning(
              "where the lease table lives; in Spring a database of the fence's own instead of"
                  + " spring.datasource.*")
          .build();

  /** {@code datasource.username}. */
  public static final Setting<String> DATASOURCE_USERNAME =
      Setting.builder("datasource.username", Kind.TEXT, Function.identity())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText("the driver's default")
          .allowed("a database role")
          .example("postgres")
          .javaApi("(DataSource)")
          .meaning("the role the fence connects as")
          .build();

  /** {@code datasource.password}. */
  public static final Setting<String> DATASOURCE_PASSWORD =
      Setting.builder("datasource.password", Kind.TEXT, Function.identity())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText("the driver's default")
          .allowed("any text")
          .example("secret")
          .javaApi("(DataSource)")
          .meaning("its password")
          .build();

  /**
   * {@code datasource.pool-size}: connections the fence's own pool (built from {@code
   * datasource.url}) opens at most.
   */
  public static final Setting<Integer> DATASOURCE_POOL_SIZE =
      Setting.builder(
              "datasource.pool-size", Kind.WHOLE_NUMBER, SettingsCatalog::dataSourcePoolSize)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(String.valueOf(WriterFenceSettings.DEFAULT_POOL_SIZE))
          .allowed(
              "a whole number from 1 to "
                  + WriterFenceSettings.MAX_POOL_SIZE
                  + " (with backend=advisory or queue.listen at least 2)")
          .example("6")
          .javaApi("(DataSource)")
          .meaning(
              "connections the fence's own pool (from datasource.url) opens at most, however"
                  + " many threads call; a call that finds none free within query-timeout is"
                  + " unavailable. With backend=advisory outside Spring, also the store's limit")
          .build();

  /** {@code schema}: the SQL contract's schema (Spring's name for it is {@code schema.name}). */
  public static final Setting<String> SCHEMA =
      Setting.builder("schema", Kind.TEXT, v -> FenceSchema.checkIdentifier("schema", v))
          .readBy(PROCESS, AGENT)
          .defaultValue(FenceSchema.DEFAULT_SCHEMA)
          .allowed("a lower-case SQL identifier")
          .example(FenceSchema.DEFAULT_SCHEMA)
          .javaApi("schema(…)")
          .meaning("schema of the SQL contract (in Spring: schema.name)")
          .build();

  /** {@code schema.name}: Spring's name for {@link #SCHEMA}, beside {@code schema.initialize}. */
  public static final Setting<String> SCHEMA_NAME =
      Setting.builder("schema.name", Kind.TEXT, v -> FenceSchema.checkIdentifier("schema.name", v))
          .readBy(SPRING)
          .defaultValue(FenceSchema.DEFAULT_SCHEMA)
          .allowed("a lower-case SQL identifier")
          .example(FenceSchema.DEFAULT_SCHEMA)
          .meaning("schema of the SQL contract, beside schema.initialize (elsewhere: schema)")
          .build();

  /** {@code schema.initialize}: whether Spring installs the SQL contract at start-up. */
  public static final Setting<Boolean> SCHEMA_INITIALIZE =
      Setting.builder("schema.initialize", Kind.FLAG, v -> flag("schema.initialize", v))
          .readBy(SPRING)
          .defaultText("true for a database Spring Boot calls embedded, else false")
          .allowed("true or false")
          .example("false")
          .javaApi("FenceSchema.install(…)")
          .meaning("install (idempotently) the SQL contract at start-up; Flyway in production")
          .build();

  /**
   * {@code schema.flyway.enabled}: whether Spring migrates the contract with its own Flyway run.
   */
  public static final Setting<Boolean> SCHEMA_FLYWAY_ENABLED =
      Setting.builder("schema.flyway.enabled", Kind.FLAG, v -> flag("schema.flyway.enabled", v))
          .readBy(SPRING)
          .defaultValue("true")
          .allowed("true or false")
          .example("false")
          .meaning(
              "when the application has a Flyway bean, migrate the SQL contract with a Flyway run"
                  + " of its own (the application's migrations untouched)")
          .build();

  /** {@code schema.flyway.table}: the history table of Spring's Flyway run of the contract. */
  public static final Setting<String> SCHEMA_FLYWAY_TABLE =
      Setting.builder(
              "schema.flyway.table",
              Kind.TEXT,
              v -> FenceSchema.checkIdentifier("schema.flyway.table", v))
          .readBy(SPRING)
          .defaultValue("writer_fence_flyway_history")
          .allowed("a lower-case SQL identifier")
          .example("writer_fence_flyway_history")
          .meaning("history table of that Flyway run, in the contract's schema")
          .build();

  /**
   * {@code schema.check}: what the starter does at start-up when the SQL contract is missing or not
   * at this library's version.
   */
  public static final Setting<String> SCHEMA_CHECK =
      choice("schema.check", List.of("warn", "fail", "off"))
          .readBy(SPRING)
          .defaultValue("warn")
          .example("fail")
          .meaning(
              "at start-up, with a backend on the SQL contract (lease, advisory): when the"
                  + " installed contract is missing or not this library's version (older, newer,"
                  + " another shape), or the database cannot be reached, log a warning naming the"
                  + " ways to install it, stop the start-up, or run no query")
          .build();

  /**
   * {@code schema.flyway.url}: where Spring's Flyway run of the contract connects, instead of the
   * fence's database.
   */
  public static final Setting<String> SCHEMA_FLYWAY_URL =
      Setting.builder("schema.flyway.url", Kind.TEXT, v -> jdbcUrl("schema.flyway.url", v))
          .readBy(SPRING)
          .defaultText("spring.flyway.url, else the fence's database")
          .allowed("a jdbc:postgresql: URL")
          .example("jdbc:postgresql://127.0.0.1:5432/postgres")
          .meaning(
              "the database that Flyway run connects to, with schema.flyway.user and"
                  + " schema.flyway.password (which then replace spring.flyway.*)")
          .build();

  /**
   * {@code schema.flyway.user}: the role Spring's Flyway run of the contract connects as, the
   * contract's owner.
   */
  public static final Setting<String> SCHEMA_FLYWAY_USER =
      Setting.builder("schema.flyway.user", Kind.TEXT, Function.identity())
          .readBy(SPRING)
          .defaultText("spring.flyway.user, else the fence's database user")
          .allowed("a database role")
          .example("owner")
          .meaning(
              "the role that Flyway run installs as, which then owns the contract (replaces"
                  + " spring.flyway.*); EXECUTE is granted to the fence's own database user")
          .build();

  /** {@code schema.flyway.password}: the password of {@code schema.flyway.user}. */
  public static final Setting<String> SCHEMA_FLYWAY_PASSWORD =
      Setting.builder("schema.flyway.password", Kind.TEXT, Function.identity())
          .readBy(SPRING)
          .defaultText("none")
          .allowed("any text")
          .example("secret")
          .meaning("the password of schema.flyway.user (used with schema.flyway.url or .user)")
          .build();

  /** {@code holder}: the default holder label. */
  public static final Setting<String> HOLDER =
      Setting.builder("holder", Kind.TEXT, FenceArguments::holderLabel)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText("<host>:<pid>")
          .allowed("at most 200 characters, no control or format characters")
          .example("upload")
          .javaApi("defaultHolderLabel(…)")
          .meaning("holder label shown to operators as LABEL@<host>:<pid> (observability only)")
          .build();

  /** {@code ttl}: the default lease TTL. */
  public static final Setting<Duration> TTL =
      Setting.builder("ttl", Kind.DURATION, SettingsCatalog::ttl)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(text(WriterFence.DEFAULT_TTL))
          .allowed("whole seconds from 1s to 86400s")
          .example("2m")
          .javaApi("defaultTtl(…)")
          .meaning("lease TTL on the database clock, with renewal on or off")
          .build();

  /** {@code renew-interval}: {@link Duration#ZERO} stands for {@code off}. */
  public static final Setting<Duration> RENEW_INTERVAL =
      Setting.builder("renew-interval", Kind.DURATION, SettingsCatalog::renewInterval)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText("a third of the TTL")
          .allowed(
              "a duration of at least 100ms (used at most as a third of a lease's TTL), or off")
          .example("20s")
          .javaApi("renewInterval(…), withoutRenewal()")
          .meaning("how often a held lease is renewed in the background")
          .build();

  /** {@code retry.max-attempts}. */
  public static final Setting<Integer> RETRY_MAX_ATTEMPTS =
      Setting.builder(
              "retry.max-attempts",
              Kind.WHOLE_NUMBER,
              v -> RETRY.withMaxAttempts(whole("retry.max-attempts", v)).maxAttempts())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(String.valueOf(RETRY.maxAttempts()))
          .allowed("a whole number, at least 1")
          .example("7")
          .javaApi("retryPolicy(…)")
          .meaning("acquire attempts in all while busy, the first included")
          .build();

  /** {@code retry.initial-interval}. */
  public static final Setting<Duration> RETRY_INITIAL_INTERVAL =
      Setting.builder(
              "retry.initial-interval",
              Kind.DURATION,
              v ->
                  RETRY
                      .withInitialInterval(duration("retry.initial-interval", v))
                      .initialInterval())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(text(RETRY.initialInterval()))
          .allowed("at least 1ms")
          .example("100ms")
          .javaApi("retryPolicy(…)")
          .meaning("wait before the second attempt")
          .build();

  /** {@code retry.multiplier}. */
  public static final Setting<Double> RETRY_MULTIPLIER =
      Setting.builder(
              "retry.multiplier",
              Kind.NUMBER,
              v -> RETRY.withMultiplier(decimal("retry.multiplier", v)).multiplier())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(String.valueOf(RETRY.multiplier()))
          .allowed("a number, at least 1.0")
          .example("1.5")
          .javaApi("retryPolicy(…)")
          .meaning("growth of the wait per attempt (±50 % jitter)")
          .build();

  /** {@code retry.max-interval}; at least {@code retry.initial-interval}, checked together. */
  public static final Setting<Duration> RETRY_MAX_INTERVAL =
      Setting.builder(
              "retry.max-interval",
              Kind.DURATION,
              v ->
                  BusyRetryPolicy.defaults()
                      .withInitialInterval(Duration.ofMillis(1))
                      .withMaxInterval(duration("retry.max-interval", v))
                      .maxInterval())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(text(RETRY.maxInterval()))
          .allowed("at least retry.initial-interval")
          .example("2s")
          .javaApi("retryPolicy(…)")
          .meaning("longest single wait")
          .build();

  /** {@code retry.max-wait}: the longest a busy acquire waits in all. */
  public static final Setting<Duration> RETRY_MAX_WAIT =
      Setting.builder(
              "retry.max-wait",
              Kind.DURATION,
              v -> RETRY.withMaxWait(duration("retry.max-wait", v)).maxWait())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText(
              "the attempts' scheduled wait, about " + RETRY.scheduledWait().toSeconds() + " s")
          .allowed("at least 1ms")
          .example("10s")
          .javaApi("retryPolicy(….withMaxWait(…))")
          .meaning(
              "the longest a busy call waits in all (in the fence's queue and for its turn in this"
                  + " process) before busy is its answer")
          .build();

  /** {@code priority}: the default priority in a fence's queue of waiters. */
  public static final Setting<Integer> PRIORITY =
      Setting.builder(
              "priority", Kind.WHOLE_NUMBER, v -> FenceArguments.priority(whole("priority", v)))
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue("0")
          .allowed("a whole number from -100 to 100")
          .example("10")
          .javaApi("defaultPriority(…)")
          .meaning(
              "place in a fence's queue of waiters of calls that set none: higher first, one level"
                  + " worth one second of waiting")
          .build();

  /** {@code queue.lapse}: how long a waiter's ticket lasts without a poll. */
  public static final Setting<Duration> QUEUE_LAPSE =
      Setting.builder("queue.lapse", Kind.DURATION, SettingsCatalog::queueLapse)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(text(WriterFence.DEFAULT_QUEUE_LAPSE))
          .allowed("whole seconds from 1s to 60s")
          .example("10s")
          .javaApi("queueLapse(…)")
          .meaning(
              "a waiter that stops polling (killed, paused) loses its place in the queue after"
                  + " this long")
          .build();

  /** {@code queue.poll-interval}: how often the head of a fence's queue polls. */
  public static final Setting<Duration> QUEUE_POLL_INTERVAL =
      Setting.builder("queue.poll-interval", Kind.DURATION, SettingsCatalog::queuePollInterval)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(text(WriterFence.DEFAULT_QUEUE_POLL_INTERVAL))
          .allowed("from 1ms to 1s")
          .example("20ms")
          .javaApi("queuePollInterval(…)")
          .meaning(
              "how often the head of a fence's queue polls for the lease (waiters further back"
                  + " poll less often)")
          .build();

  /** {@code queue.listen}: whether the front of a fence's queue is woken by LISTEN. */
  public static final Setting<Boolean> QUEUE_LISTEN =
      Setting.builder("queue.listen", Kind.FLAG, v -> flag("queue.listen", v))
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue("true")
          .allowed("true or false")
          .example("false")
          .javaApi("queueListen(…)")
          .meaning(
              "the head of a fence's queue learns of a release at once by LISTEN, on one"
                  + " connection per process while writers wait; a probe notification proves it"
                  + " at start and, behind a transaction pooler that swallows notifications, it"
                  + " polls instead (see queue.listen-url)")
          .build();

  /** {@code queue.listen-url}: a direct connection for the release listener alone. */
  public static final Setting<String> QUEUE_LISTEN_URL =
      Setting.builder("queue.listen-url", Kind.TEXT, v -> jdbcUrl("queue.listen-url", v))
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText("the fence's data source")
          .allowed("a jdbc:postgresql: URL")
          .example("jdbc:postgresql://db-primary:5432/app")
          .javaApi("queueListenUrl(…)")
          .meaning(
              "a direct connection to PostgreSQL (not through PgBouncer) used only to LISTEN for"
                  + " releases, as datasource.username/password or the URL's user and password")
          .build();

  /** {@code queue.busy-early}: whether a waiter that cannot make it in time gives up at once. */
  public static final Setting<Boolean> QUEUE_BUSY_EARLY =
      Setting.builder("queue.busy-early", Kind.FLAG, v -> flag("queue.busy-early", v))
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue("false")
          .allowed("true or false")
          .example("true")
          .javaApi("queueBusyEarly(…)")
          .meaning(
              "true: a waiter whose place the queue cannot reach within its budget at the measured"
                  + " pace (expected wait over 1.5 times what is left of it) is busy at once;"
                  + " false (the default, ADR 66) waits out the budget")
          .build();

  /**
   * {@code backend}: the name of a registered backend ({@link BackendRegistry}); core registers
   * {@code lease}, {@code advisory} and {@code lease-rpc}.
   */
  public static final Setting<String> BACKEND =
      choice("backend", BackendRegistry.names())
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(BackendRegistry.DEFAULT_BACKEND)
          .example("lease")
          .javaApi("builder(store)")
          .meaning(
              "the lease row, a session advisory lock on a pinned connection (docs/backends.md;"
                  + " its store runs its self-check when the fence is built), or an"
                  + " existing deployment's lease-RPC pair (lease-rpc.*; no renewal, no fencing"
                  + " tokens); any other backend registered as a LeaseStoreProvider")
          .build();

  /** {@code lease-rpc.acquire-function}: the existing deployment's acquire function. */
  public static final Setting<String> LEASE_RPC_ACQUIRE_FUNCTION =
      rpcName(
          "lease-rpc.acquire-function",
          LeaseRpcContract.DEFAULT_ACQUIRE_FUNCTION,
          "the acquire function the other writers call: true takes the lease, false is busy");

  /** {@code lease-rpc.release-function}: the existing deployment's release function. */
  public static final Setting<String> LEASE_RPC_RELEASE_FUNCTION =
      rpcName(
          "lease-rpc.release-function",
          LeaseRpcContract.DEFAULT_RELEASE_FUNCTION,
          "the release function (frees only for the same token)");

  /** {@code lease-rpc.holder-token-parameter}. */
  public static final Setting<String> LEASE_RPC_HOLDER_TOKEN_PARAMETER =
      rpcName(
          "lease-rpc.holder-token-parameter",
          LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER,
          "the holder token's parameter (uuid) of both functions");

  /** {@code lease-rpc.holder-parameter}. */
  public static final Setting<String> LEASE_RPC_HOLDER_PARAMETER =
      rpcName(
          "lease-rpc.holder-parameter",
          LeaseRpcContract.DEFAULT_HOLDER_PARAMETER,
          "the holder label's parameter (text); without a label the server's default stands");

  /** {@code lease-rpc.ttl-parameter}. */
  public static final Setting<String> LEASE_RPC_TTL_PARAMETER =
      rpcName(
          "lease-rpc.ttl-parameter",
          LeaseRpcContract.DEFAULT_TTL_PARAMETER,
          "the acquire's TTL parameter, whole seconds (the lease lasts the ttl setting; no"
              + " renewal)");

  /** {@code lease-rpc.fence-name-parameter}: unset passes no fence name (the server's row). */
  public static final Setting<String> LEASE_RPC_FENCE_NAME_PARAMETER =
      Setting.builder(
              "lease-rpc.fence-name-parameter",
              Kind.TEXT,
              v -> LeaseRpcContract.parameter("lease-rpc.fence-name-parameter", v))
          .readBy(PROCESS, AGENT, SPRING)
          .defaultText("none: the server's default row")
          .allowed("a lower-case SQL identifier")
          .example("p_fence_name")
          .javaApi("LeaseRpcContract")
          .meaning(
              "with backend=lease-rpc, the fence name's parameter; unset, no name is passed and"
                  + " every fence name is the one row the server's default names, as the other"
                  + " writers use it")
          .build();

  /** {@code advisory.pool-size}: connections the advisory-lock backend uses at most at once. */
  public static final Setting<Integer> ADVISORY_POOL_SIZE =
      Setting.builder("advisory.pool-size", Kind.WHOLE_NUMBER, SettingsCatalog::poolSize)
          .readBy(SPRING)
          .defaultValue(String.valueOf(AdvisoryLockStore.DEFAULT_POOL_SIZE))
          .allowed("a whole number, at least 2")
          .example(String.valueOf(AdvisoryLockStore.DEFAULT_POOL_SIZE))
          .javaApi("AdvisoryLockStore.builder(…).poolSize(…)")
          .meaning(
              "with backend=advisory, connections in use at most at once (one pinned per fence"
                  + " held, one per attempt)")
          .build();

  /** {@code advisory.key-scheme}: how a fence name becomes the text its advisory key hashes. */
  public static final Setting<String> ADVISORY_KEY_SCHEME =
      Setting.builder("advisory.key-scheme", Kind.TEXT, AdvisoryKeys::checkKeyScheme)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(AdvisoryKeys.DEFAULT_KEY_SCHEME)
          .allowed("text with {name} at least once, no other placeholder; {{ }} literal braces")
          .example("vibey.fence:{name}")
          .javaApi("AdvisoryLockStore.builder(…).keyScheme(…)")
          .meaning(
              "with backend=advisory, the text whose SHA-256 (first 8 bytes, signed) is a fence's"
                  + " lock key, {name} being the fence name; a method's advisoryKey overrides it")
          .build();

  /** {@code query-timeout}. */
  public static final Setting<Duration> QUERY_TIMEOUT =
      Setting.builder("query-timeout", Kind.DURATION, SettingsCatalog::queryTimeout)
          .readBy(PROCESS, AGENT, SPRING)
          .defaultValue(text(WriterFence.DEFAULT_QUERY_TIMEOUT))
          .allowed("at least 1s, rounded up to whole seconds")
          .example("5s")
          .javaApi("queryTimeout(…)")
          .meaning("a statement slower than this is unavailable: the call fails closed")
          .build();

  /** {@code enabled}: whether the starter configures anything. */
  public static final Setting<Boolean> ENABLED =
      Setting.builder("enabled", Kind.FLAG, v -> flag("enabled", v))
          .readBy(SPRING)
          .defaultValue("true")
          .allowed("true or false")
          .example("true")
          .meaning("whether to configure the fence, its advice, metrics and endpoint")
          .build();

  /**
   * {@code task.carry-holds}: whether Spring Boot's task executor and scheduler run their tasks
   * inside the holds of the code that handed them over.
   */
  public static final Setting<Boolean> TASK_CARRY_HOLDS =
      Setting.builder("task.carry-holds", Kind.FLAG, v -> flag("task.carry-holds", v))
          .readBy(SPRING)
          .defaultValue("true")
          .allowed("true or false")
          .example("true")
          .javaApi("WriterFence.wrap(…)")
          .meaning(
              "Spring Boot's task executor (@Async) and task scheduler run each task inside the"
                  + " holds of the code that submitted it, while those leases are valid (a"
                  + " TaskDecorator)")
          .build();

  /**
   * {@code observations.enabled}: whether the starter gives the fence the application's Micrometer
   * observation registry.
   */
  public static final Setting<Boolean> OBSERVATIONS_ENABLED =
      Setting.builder("observations.enabled", Kind.FLAG, v -> flag("observations.enabled", v))
          .readBy(SPRING)
          .defaultValue("true")
          .allowed("true or false")
          .example("false")
          .javaApi("WriterFence.Builder.observationRegistry(…)")
          .meaning(
              "observe each acquire (its queue wait included) and each hold in the application's"
                  + " ObservationRegistry: spans under Micrometer Tracing (docs/observability.md)")
          .build();

  /** {@code fence.methods}: the methods the agent fences. */
  public static final Setting<String> FENCE_METHODS =
      Setting.builder("fence.methods", Kind.TEXT, v -> nonEmpty("fence.methods", v))
          .readBy(AGENT)
          .allowed(
              "CLASS#METHOD[=FENCE[/HOLDER]][;priority=N][;on-busy=throw|skip]"
                  + "[;retry.max-wait=DURATION][;interrupt-on-loss=true|false][;advisory-key=KEY], comma-separated")
          .example("com.acme.sync.Uploader#upload*=corpus/uploader;priority=10")
          .meaning("methods the agent fences, in code that cannot be recompiled")
          .build();

  /** {@code fence-name}: the fence of {@code fence.methods} entries that name none. */
  public static final Setting<String> FENCE_NAME =
      Setting.builder("fence-name", Kind.TEXT, FenceArguments::fenceName)
          .readBy(AGENT)
          .allowed(
              "1 to 200 characters, no control or format characters, no white space at the ends")
          .example("corpus")
          .meaning("the fence of fence.methods entries without =FENCE")
          .build();

  /** {@code weaving.check}: what the start-up weaving check does when weaving is missing. */
  public static final Setting<String> WEAVING_CHECK =
      choice("weaving.check", List.of("fail", "warn", "off"))
          .readBy(PROCESS)
          .defaultValue("fail")
          .example("warn")
          .meaning(
              "when ProcessFence.set finds @WriterFenced methods the AspectJ aspect does not reach"
                  + " (an unwoven indexed method, or a load-time weaver whose aop.xml lacks the"
                  + " aspect): refuse the fence, log a warning, or skip the check")
          .build();

  /** {@code audit.mode}: {@code off}, {@code log} or {@code enforce}. */
  public static final Setting<String> AUDIT_MODE =
      choice("audit.mode", List.of("off", "log", "enforce"))
          .readBy(AUDIT)
          .defaultValue("off")
          .example("log")
          .meaning("what happens to a storage write made while no fence is held: report or refuse")
          .build();

  /** {@code audit.report}: the JSON report file. */
  public static final Setting<Path> AUDIT_REPORT =
      Setting.builder("audit.report", Kind.TEXT, v -> Path.of(nonEmpty("audit.report", v)))
          .readBy(AUDIT)
          .allowed("a file path; `{pid}` in it becomes the JVM's process id")
          .example("audit-{pid}.json")
          .meaning(
              "where the JSON report of unfenced writes goes, at exit and through JMX; with"
                  + " `{pid}` every JVM sharing the setting writes its own")
          .build();

  /** {@code audit.paths}: file writes under these paths are audited. */
  public static final Setting<List<Path>> AUDIT_PATHS =
      Setting.builder("audit.paths", Kind.TEXT, v -> paths("audit.paths", v))
          .readBy(AUDIT)
          .allowed("comma-separated directories or files")
          .example("/srv/bucket")
          .meaning("file writes under these paths are audited (none without it)")
          .build();

  /** {@code audit.require-fence}: the fence name every audited write must hold. */
  public static final Setting<String> AUDIT_REQUIRE_FENCE =
      Setting.builder("audit.require-fence", Kind.TEXT, FenceArguments::fenceName)
          .readBy(AUDIT)
          .defaultText("any fence")
          .allowed("a fence name")
          .example("corpus")
          .meaning("the fence name a write must hold to count as fenced")
          .build();

  /** {@code audit.require-fence.<client>}: the same, for one storage client. */
  public static final Setting<String> AUDIT_REQUIRE_FENCE_PER_CLIENT =
      Setting.builder("audit.require-fence.<client>", Kind.TEXT, FenceArguments::fenceName)
          .readBy(AUDIT)
          .members(AUDIT_CLIENTS)
          .defaultText("audit.require-fence")
          .allowed("a fence name")
          .example("corpus")
          .meaning("the same for one client: " + String.join(", ", AUDIT_CLIENTS))
          .build();

  /** {@code audit.map}: whether the audit records fenced writes too, for the writer map. */
  public static final Setting<Boolean> AUDIT_MAP =
      Setting.builder("audit.map", Kind.FLAG, v -> flag("audit.map", v))
          .readBy(AUDIT)
          .defaultValue("false")
          .allowed("true or false")
          .example("true")
          .meaning(
              "record fenced writes too (call site, fence name, holder label) for the writer map"
                  + " of each bucket: a stack walk per fenced write")
          .build();

  /**
   * {@code audit.library-packages}: libraries that wrap storage clients, past which call sites are.
   */
  public static final Setting<List<String>> AUDIT_LIBRARY_PACKAGES =
      Setting.builder(
              "audit.library-packages", Kind.TEXT, v -> packages("audit.library-packages", v))
          .readBy(AUDIT)
          .defaultText("the known ones")
          .allowed("comma-separated package prefixes")
          .example("com.acme.storage.")
          .meaning(
              "libraries that wrap storage clients, beside Spring Cloud AWS, Apache Camel, Hadoop's"
                  + " S3A and Spring Integration AWS: a call site is the application's frame past"
                  + " them, theirs shown beside it")
          .build();

  /** {@code agent.propagation}: whether the agent carries holds to the tasks a holder hands off. */
  public static final Setting<Boolean> AGENT_PROPAGATION =
      Setting.builder("agent.propagation", Kind.FLAG, v -> flag("agent.propagation", v))
          .readBy(AGENT, AUDIT)
          .defaultValue("true")
          .allowed("true or false")
          .example("true")
          .meaning(
              "carry a thread's holds to the tasks it hands to executors, fork/join pools and"
                  + " threads (virtual ones too)")
          .build();

  /** {@code agent.jar}: the agent jar the CLI's {@code audit} command attaches. */
  public static final Setting<Path> AGENT_JAR =
      Setting.builder("agent.jar", Kind.TEXT, v -> Path.of(nonEmpty("agent.jar", v)))
          .readBy(CLI)
          .defaultText("the jar beside the CLI's")
          .allowed("a file path")
          .example("writer-fence-agent.jar")
          .meaning("the agent jar that the audit command attaches")
          .build();

  /** {@code debug}: whether the CLI prints the stack trace of a failure. */
  public static final Setting<Boolean> DEBUG =
      Setting.builder("debug", Kind.FLAG, v -> flag("debug", v))
          .readBy(CLI)
          .defaultValue("false")
          .allowed("true or false")
          .example("false")
          .meaning("print the stack trace of a failed command")
          .build();

  private static final List<Setting<?>> ALL =
      List.of(
          DATASOURCE_URL,
          DATASOURCE_USERNAME,
          DATASOURCE_PASSWORD,
          DATASOURCE_POOL_SIZE,
          SCHEMA,
          SCHEMA_NAME,
          SCHEMA_INITIALIZE,
          SCHEMA_FLYWAY_ENABLED,
          SCHEMA_FLYWAY_TABLE,
          SCHEMA_CHECK,
          SCHEMA_FLYWAY_URL,
          SCHEMA_FLYWAY_USER,
          SCHEMA_FLYWAY_PASSWORD,
          HOLDER,
          TTL,
          RENEW_INTERVAL,
          RETRY_MAX_ATTEMPTS,
          RETRY_INITIAL_INTERVAL,
          RETRY_MULTIPLIER,
          RETRY_MAX_INTERVAL,
          RETRY_MAX_WAIT,
          PRIORITY,
          QUEUE_LAPSE,
          QUEUE_POLL_INTERVAL,
          QUEUE_LISTEN,
          QUEUE_BUSY_EARLY,
          QUEUE_LISTEN_URL,
          BACKEND,
          ADVISORY_POOL_SIZE,
          ADVISORY_KEY_SCHEME,
          LEASE_RPC_ACQUIRE_FUNCTION,
          LEASE_RPC_RELEASE_FUNCTION,
          LEASE_RPC_HOLDER_TOKEN_PARAMETER,
          LEASE_RPC_HOLDER_PARAMETER,
          LEASE_RPC_TTL_PARAMETER,
          LEASE_RPC_FENCE_NAME_PARAMETER,
          QUERY_TIMEOUT,
          ENABLED,
          TASK_CARRY_HOLDS,
          OBSERVATIONS_ENABLED,
          FENCE_METHODS,
          FENCE_NAME,
          WEAVING_CHECK,
          AUDIT_MODE,
          AUDIT_REPORT,
          AUDIT_PATHS,
          AUDIT_REQUIRE_FENCE,
          AUDIT_REQUIRE_FENCE_PER_CLIENT,
          AUDIT_MAP,
          AUDIT_LIBRARY_PACKAGES,
          AGENT_PROPAGATION,
          AGENT_JAR,
          DEBUG);

  private SettingsCatalog() {}

  /**
   * @return every setting, in the configuration page's order
   */
  public static List<Setting<?>> all() {
    return ALL;
  }

  /**
   * @param mode a mode
   * @return the settings that mode reads, in the configuration page's order
   */
  public static List<Setting<?>> readBy(Mode mode) {
    return ALL.stream().filter(s -> s.isReadBy(mode)).toList();
  }

  /**
   * @param bareKey a key without the prefix, such as {@code ttl} or {@code
   *     audit.require-fence.aws-s3-v2}
   * @return the setting it is, if any
   */
  public static Optional<Setting<?>> find(String bareKey) {
    for (Setting<?> s : ALL) {
      if (s.matches(bareKey)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }

  /**
   * @param bareKey a key without the prefix
   * @return whether some mode reads it (and so no mode may refuse it)
   */
  public static boolean isKnown(String bareKey) {
    return find(bareKey).isPresent();
  }

  /**
   * @param property the unknown property as given, such as {@code writer-fence.audit.modes}
   * @param source where it came from, for the message (such as "system properties")
   * @return the error to throw, naming the property, the closest known keys when one is close
   *     ({@code did you mean writer-fence.audit.mode?}, in the form the property was given) and
   *     every known key
   */
  public static IllegalArgumentException unknown(String property, String source) {
    boolean prefixed = property.startsWith(PREFIX);
    String bareKey = prefixed ? property.substring(PREFIX.length()) : property;
    Optional<String> member = unknownMember(bareKey);
    return new IllegalArgumentException(
        "writer-fence: unknown setting '"
            + property
            + "' (from "
            + source
            + ")"
            + (member.isPresent()
                ? ": " + member.get()
                : closestThenKnown(bareKey, prefixed ? PREFIX : "")));
  }

  /**
   * Why a key that is no setting was refused, for a mode that words its own message (Spring).
   *
   * @param bareKey the key without the prefix, such as {@code audit.require-fence.gsc}
   * @return {@code unknown setting}, then the known members when the key is under a family with
   *     members (naming the bad last part), else the closest known keys when one is close and every
   *     known key
   */
  public static String whyUnknown(String bareKey) {
    return "unknown setting"
        + unknownMember(bareKey).map(m -> ": " + m).orElseGet(() -> closestThenKnown(bareKey, ""));
  }

  /**
   * The closest keys first, when one is within a few edits ({@code ClosestKeys}); every known key
   * stays after them, because a suggestion can be wrong and the list then answers at once.
   *
   * @param shownPrefix what the suggested keys are shown with: the prefix when the key was given
   *     with it
   * @return {@code ; did you mean KEY? known settings: ...} ({@code KEY or KEY} when several are as
   *     close), or {@code ; known settings: ...} when none is close
   */
  private static String closestThenKnown(String bareKey, String shownPrefix) {
    List<String> keys = new ArrayList<>();
    for (Setting<?> s : ALL) {
      if (!s.isFamily()) {
        keys.add(s.key());
      }
      s.members().forEach(m -> keys.add(s.familyPrefix() + m));
    }
    List<String> closest =
        ClosestKeys.to(bareKey, keys).stream().map(k -> shownPrefix + k).toList();
    String known = "known settings: " + knownKeys();
    if (closest.isEmpty()) {
      return "; " + known;
    }
    int last = closest.size() - 1;
    String words =
        last == 0
            ? closest.get(0)
            : String.join(", ", closest.subList(0, last)) + " or " + closest.get(last);
    return "; did you mean " + words + "? " + known;
  }

  /**
   * @return for a key under a family whose members are known but which is none of them, the words
   *     naming its last part and the members; else empty
   */
  private static Optional<String> unknownMember(String bareKey) {
    for (Setting<?> s : ALL) {
      String prefix = s.familyPrefix();
      if (!s.members().isEmpty()
          && bareKey.startsWith(prefix)
          && bareKey.length() > prefix.length()
          && !s.matches(bareKey)) {
        String word = s.key().substring(prefix.length() + 1, s.key().length() - 1); // <client>
        return Optional.of(
            "'"
                + bareKey.substring(prefix.length())
                + "' is no known "
                + word
                + " of "
                + s.key()
                + "; known "
                + word
                + "s: "
                + String.join(", ", s.members()));
      }
    }
    return Optional.empty();
  }

  /**
   * @return every key, comma-separated, for messages
   */
  public static String knownKeys() {
    return ALL.stream().map(Setting::key).collect(Collectors.joining(", "));
  }

  /**
   * @param duration a duration
   * @return it as the catalog writes it: {@code 200ms}, {@code 30s}, {@code 2m}, {@code 1h}
   */
  public static String text(Duration duration) {
    long ms = duration.toMillis();
    if (ms % 3_600_000 == 0 && ms > 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms > 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
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
    Matcher m = DURATION.matcher(value.strip());
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
      return Duration.parse(value.strip());
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          "writer-fence: " + key + " '" + value + "' is not a duration: " + DURATION_FORMS);
    }
  }

  /** A function's or parameter's name of the lease-RPC pair, with its default. */
  private static Setting<String> rpcName(String key, String defaultName, String what) {
    boolean function = key.endsWith("-function");
    return Setting.builder(
            key,
            Kind.TEXT,
            v -> function ? LeaseRpcContract.function(key, v) : LeaseRpcContract.parameter(key, v))
        .readBy(PROCESS, AGENT, SPRING)
        .defaultValue(defaultName)
        .allowed(function ? "a function name or schema.name" : "a lower-case SQL identifier")
        .example(defaultName)
        .javaApi("LeaseRpcContract")
        .meaning("with backend=lease-rpc, " + what)
        .build();
  }

  private static Setting.Builder<String> choice(String key, List<String> words) {
    String rule =
        words.size() == 1
            ? words.get(0)
            : String.join(", ", words.subList(0, words.size() - 1))
                + " or "
                + words.get(words.size() - 1);
    return Setting.<String>builder(
            key,
            Kind.CHOICE,
            v -> {
              String word = v.toLowerCase(Locale.ROOT);
              if (!words.contains(word)) {
                throw new IllegalArgumentException(
                    "writer-fence: " + key + " '" + v + "' is not allowed: " + rule);
              }
              return word;
            })
        .choices(words)
        .allowed(rule);
  }

  private static String jdbcUrl(String key, String v) {
    if (!v.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException(
          "writer-fence: " + key + " '" + v + "' is not allowed: a jdbc:postgresql: URL");
    }
    return v;
  }

  private static Duration ttl(String v) {
    Duration d = duration("ttl", v);
    FenceArguments.ttlSeconds(d);
    return d;
  }

  private static Duration renewInterval(String v) {
    if ("off".equals(v) || "false".equals(v)) { // false: what YAML makes of an unquoted off
      return Duration.ZERO;
    }
    return FenceArguments.renewInterval(duration("renew-interval", v));
  }

  private static Duration queueLapse(String v) {
    Duration d = duration("queue.lapse", v);
    FenceArguments.lapseSeconds(d);
    return d;
  }

  private static Duration queuePollInterval(String v) {
    Duration d = duration("queue.poll-interval", v);
    return FenceArguments.queuePollInterval(d);
  }

  private static Duration queryTimeout(String v) {
    Duration d = duration("query-timeout", v);
    PgLeaseStore.queryTimeoutSeconds(d);
    return d;
  }

  private static int dataSourcePoolSize(String v) {
    int n = whole("datasource.pool-size", v);
    if (n < 1 || n > WriterFenceSettings.MAX_POOL_SIZE) {
      throw new IllegalArgumentException(
          "writer-fence: datasource.pool-size '"
              + v
              + "' is not allowed: a whole number from 1 to "
              + WriterFenceSettings.MAX_POOL_SIZE
              + " (connections the fence's own pool opens at most)");
    }
    return n;
  }

  private static int poolSize(String v) {
    int n = whole("advisory.pool-size", v);
    if (n < 2) {
      throw new IllegalArgumentException(
          "writer-fence: advisory.pool-size '"
              + v
              + "' is not allowed: at least 2 (the start-up self-check uses two connections)");
    }
    return n;
  }

  private static boolean flag(String key, String v) {
    return switch (v.toLowerCase(Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalArgumentException(
              "writer-fence: " + key + " '" + v + "' is not allowed: true or false");
    };
  }

  private static int whole(String key, String v) {
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "writer-fence: " + key + " '" + v + "' is not a whole number");
    }
  }

  private static double decimal(String key, String v) {
    try {
      return Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("writer-fence: " + key + " '" + v + "' is not a number");
    }
  }

  private static String nonEmpty(String key, String v) {
    if (v.isEmpty()) {
      throw new IllegalArgumentException("writer-fence: " + key + " is empty");
    }
    return v;
  }

  private static List<Path> paths(String key, String v) {
    List<Path> result = new ArrayList<>();
    for (String entry : v.split(",", -1)) {
      String trimmed = entry.strip();
      if (trimmed.isEmpty()) {
        throw new IllegalArgumentException(
            "writer-fence: "
                + key
                + " '"
                + v
                + "' has an empty entry: use comma-separated directories or files, e.g."
                + " /var/lib/volume,/data/index");
      }
      result.add(Path.of(trimmed));
    }
    return List.copyOf(result);
  }

  /** Package prefixes, each a dotted Java name, ending in a dot so that it matches whole names. */
  private static List<String> packages(String key, String v) {
    List<String> result = new ArrayList<>();
    for (String entry : v.split(",", -1)) {
      String trimmed = entry.strip();
      if (!trimmed.matches(
          "\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*"
              + "(\\.\\p{javaJavaIdentifierStart}\\p{javaJavaIdentifierPart}*)*\\.?")) {
        throw new IllegalArgumentException(
            "writer-fence: "
                + key
                + " '"
                + v
                + "' has the entry '"
                + trimmed
                + "', which is not a package prefix: use comma-separated package names, e.g."
                + " com.acme.storage,org.example.s3");
      }
      result.add(trimmed.endsWith(".") ? trimmed : trimmed + ".");
    }
    return List.copyOf(result);
  }
}
