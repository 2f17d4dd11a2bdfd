package dev.writerfence.spring.boot;

import dev.writerfence.config.WriterFenceConfiguration;
import dev.writerfence.internal.config.SettingsCatalog;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.validation.Errors;
import org.springframework.validation.Validator;

/**
 * The {@code writer-fence.*} settings the starter reads: core's {@link WriterFenceConfiguration}
 * (every setting of the fence, and how a fence is built from them), bound by Spring, with the
 * starter's own keys added ({@code enabled}, {@code schema.initialize}, {@code schema.flyway.*},
 * {@code task.*}). The names, rules and meanings are those of the core's {@link SettingsCatalog},
 * and so is the configuration metadata ({@code additional-spring-configuration-metadata.json},
 * rendered from the catalog and checked against it). Durations take a unit: {@code 500ms}, {@code
 * 30s}, {@code 2m} or ISO-8601.
 *
 * <p>Checked at binding time by the core's rules ({@link WriterFenceConfiguration#violations()}): a
 * bad value stops the start-up with a message naming the property, its value and the rule. The keys
 * are judged by the core's {@link SettingsCatalog}, not by what this class binds: a key of the
 * catalog that only the agent or the process fence reads (the same {@code -Dwriter-fence.*} system
 * properties reach Spring) is accepted and left alone; any other {@code writer-fence.*} key stops
 * the start-up naming it.
 */
@ConfigurationProperties(prefix = WriterFenceProperties.PREFIX)
public class WriterFenceProperties extends WriterFenceConfiguration
    implements Validator, EnvironmentAware {
  /** The prefix of every setting. */
  public static final String PREFIX = "writer-fence";

  /** {@code backend} of the lease row. */
  public static final String LEASE = "lease";

  /** {@code backend} of the advisory-lock backend. */
  public static final String ADVISORY = "advisory";

  /** {@code backend} of an existing deployment's lease-RPC pair. */
  public static final String LEASE_RPC = "lease-rpc";

  /** The smallest {@code advisory.pool-size}: the start-up self-check uses two connections. */
  public static final int MIN_ADVISORY_POOL_SIZE = 2;

  /** Whether to configure the fence, its advice, metrics and endpoint. */
  private boolean enabled = true;

  /** Spring Boot's task executor and scheduler ({@code writer-fence.task.*}). */
  private final Task task = new Task();

  /** The fence's Micrometer observations ({@code writer-fence.observations.*}). */
  private final Observations observations = new Observations();

  /** Set by Spring before binding: where the {@code writer-fence.*} keys are judged. */
  private Environment environment;

  /**
   * The core's defaults, and the advisory-lock backend's pool of {@value
   * AdvisoryLockStore#DEFAULT_POOL_SIZE} connections: in Spring {@code advisory.pool-size} alone
   * sizes it, never {@code datasource.pool-size}.
   */
  public WriterFenceProperties() {
    super(new Schema());
    getAdvisory().setPoolSize(AdvisoryLockStore.DEFAULT_POOL_SIZE);
  }

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  /**
   * @return the schema group, with the starter's {@code schema.initialize} and {@code
   *     schema.flyway.*}
   */
  @Override
  public Schema getSchema() {
    return (Schema) super.getSchema();
  }

  public Task getTask() {
    return task;
  }

  public Observations getObservations() {
    return observations;
  }

  /**
   * @return {@code true} with {@code backend=advisory}
   */
  public boolean isAdvisory() {
    return ADVISORY.equals(getBackend());
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
    for (Violation v : p.violations()) {
      reject(errors, v.key(), v.message());
    }
    try {
      FenceSchema.checkIdentifier("schema.flyway.table", p.getSchema().getFlyway().getTable());
    } catch (IllegalArgumentException e) {
      reject(errors, "schema.flyway.table", e.getMessage());
    }
    try {
      p.getSchema().checkMode();
    } catch (IllegalArgumentException e) {
      reject(errors, "schema.check", e.getMessage());
    }
    String flywayUrl = p.getSchema().getFlyway().getUrl();
    try {
      if (flywayUrl != null) {
        SettingsCatalog.SCHEMA_FLYWAY_URL.parse(flywayUrl);
      }
    } catch (IllegalArgumentException e) {
      reject(errors, "schema.flyway.url", e.getMessage());
    }
  }

  /** One broken rule of the core: its message (which names the value and the rule) is the error. */
  private static void reject(Errors errors, String key, String message) {
    errors.rejectValue(field(key), "writer-fence.invalid", PREFIX + "." + key + ": " + message);
  }

  /** The bean path of a key: {@code retry.max-attempts} is {@code retry.maxAttempts}. */
  static String field(String key) {
    StringBuilder out = new StringBuilder();
    boolean upper = false;
    for (char ch : key.toCharArray()) {
      if (ch == '-') {
        upper = true;
      } else {
        out.append(upper ? Character.toUpperCase(ch) : ch);
        upper = false;
      }
    }
    return out.toString();
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

  /** The fence's Micrometer observations ({@code writer-fence.observations.*}). */
  public static class Observations {
    /**
     * Whether the fence observes each acquire (its queue wait included) and each hold in the
     * application's ObservationRegistry: spans under Micrometer Tracing.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }

  /** The SQL contract's schema ({@code writer-fence.schema.*}), with the starter's own keys. */
  public static class Schema extends WriterFenceConfiguration.Schema {
    /**
     * Whether to install (idempotently) the SQL contract at start-up, as the fence's database user,
     * who then owns it. Unset: only for an embedded database, as Spring Boot defines it (which no
     * PostgreSQL server is). In production prefer the starter's Flyway run ({@code
     * schema.flyway.*}) as the owner role, or the CLI.
     */
    private Boolean initialize;

    /** The contract's own Flyway run ({@code writer-fence.schema.flyway.*}). */
    private final Flyway flyway = new Flyway();

    /**
     * What the start-up check of the installed SQL contract does when it is missing, older or of
     * another shape, or the database cannot be reached: warn (log a warning), fail (stop the
     * start-up) or off (no check, no query).
     */
    private String check = "warn";

    public Boolean getInitialize() {
      return initialize;
    }

    public void setInitialize(Boolean initialize) {
      this.initialize = initialize;
    }

    public Flyway getFlyway() {
      return flyway;
    }

    public String getCheck() {
      return check;
    }

    public void setCheck(String check) {
      this.check = check;
    }

    /**
     * @return {@code warn}, {@code fail} or {@code off}, as the catalog parses {@code
     *     schema.check}; {@code false}, what YAML makes of an unquoted {@code off}, is {@code off}
     * @throws IllegalArgumentException naming the value and the allowed words
     */
    public String checkMode() {
      String value = check == null ? "" : check.strip();
      return "false".equalsIgnoreCase(value) ? "off" : SettingsCatalog.SCHEMA_CHECK.parse(value);
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

    /**
     * JDBC URL the contract's Flyway run connects to, with {@code user} and {@code password};
     * unset: spring.flyway.url, else the fence's database.
     */
    private String url;

    /**
     * Role the contract's Flyway run installs as (the contract's owner), on the fence's database
     * unless {@code url} is set; unset: spring.flyway.user, else the fence's database user. EXECUTE
     * is granted to the fence's own database user.
     */
    private String user;

    /** Password of {@code user}, used with {@code url} or {@code user}. */
    private String password;

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

    public String getUrl() {
      return url;
    }

    public void setUrl(String url) {
      this.url = url;
    }

    public String getUser() {
      return user;
    }

    public void setUser(String user) {
      this.user = user;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }
  }
}
