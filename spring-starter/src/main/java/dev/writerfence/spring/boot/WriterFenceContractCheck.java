package dev.writerfence.spring.boot;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.InstalledContract;
import dev.writerfence.spring.actuate.WriterFenceHealthCheck;
import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;

/**
 * The start-up check of the installed SQL contract ({@code writer-fence.schema.check}): once every
 * singleton of the context exists (after the contract's migration run and {@code
 * writer-fence.schema.initialize}, and after any bean of the application that installs it), and
 * before the context reports itself started or a web server takes requests, it reads the contract's
 * schema on one connection of the fence's DataSource ({@link InstalledContract#inspect}) and
 * compares it with this library's version ({@link FenceSchema#VERSION}).
 *
 * <p>A contract missing, older, newer or of another shape, or a database that cannot be reached, is
 * a warning naming the schema, the versions found and expected and the ways to install ({@code
 * warn}, the default), or stops the start-up with a {@link WriterFenceStartupException} ({@code
 * fail}); {@code off} runs no query. Only backends on the contract are checked ({@code lease},
 * {@code advisory}: {@link WriterFenceHealthCheck#usesContract}); {@code lease-rpc} or a backend of
 * another jar is left alone.
 *
 * <p>Never hangs: the connection is the pool's, within its connection timeout, and every read on it
 * is bounded by {@code writer-fence.query-timeout} (a network timeout). A role without CREATE on
 * the database (which {@link InstalledContract#inspect} needs to compare shapes, SQLState 42501)
 * gets the version check alone, from {@code <schema>.schema_version()}.
 */
public final class WriterFenceContractCheck implements SmartInitializingSingleton {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceContractCheck.class);

  /** At most this many differences of shape are named in the message (schema verify: all). */
  private static final int DIFFERENCES_SHOWN = 3;

  private final DataSource dataSource;
  private final boolean dedicated;
  private final String schema;
  private final String backend;
  private final String mode;
  private final int timeoutMillis;

  /**
   * @param dataSource the fence's connections
   * @param properties {@code writer-fence.*}: schema name, check mode, backend, query timeout
   * @throws IllegalArgumentException when {@code writer-fence.schema.check} is not {@code warn},
   *     {@code fail} or {@code off} (binding refuses it first)
   */
  public WriterFenceContractCheck(
      WriterFenceDataSource dataSource, WriterFenceProperties properties) {
    this.dataSource = dataSource.dataSource();
    this.dedicated = dataSource.isDedicated();
    this.schema = properties.getSchema().getName();
    this.backend = properties.getBackend();
    this.mode = properties.getSchema().checkMode();
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, 1000L * queryTimeoutSeconds(properties));
  }

  private static int queryTimeoutSeconds(WriterFenceProperties properties) {
    return PgLeaseStore.queryTimeoutSeconds(properties.getQueryTimeout());
  }

  /**
   * Runs the check unless {@code writer-fence.schema.check=off} or the backend keeps no contract.
   *
   * @throws WriterFenceStartupException with {@code writer-fence.schema.check=fail}, when the
   *     contract is not this library's version or cannot be read
   */
  @Override
  public void afterSingletonsInstantiated() {
    if ("off".equals(mode) || !WriterFenceHealthCheck.usesContract(backend)) {
      return;
    }
    Optional<WriterFenceStartupException> problem = check();
    if (problem.isEmpty()) {
      LOG.debug("writer-fence: SQL contract version {} in schema {}", FenceSchema.VERSION, schema);
      return;
    }
    if ("fail".equals(mode)) {
      throw problem.get();
    }
    LOG.warn(
        "{}. {}. writer-fence.schema.check=fail stops the start-up instead, off skips this check",
        problem.get().getDescription(),
        problem.get().getAction());
  }

  /**
   * Reads the contract once, whatever the mode.
   *
   * @return what is wrong with it and what to do, or empty when it is installed at this library's
   *     version with the contract's shape; never throws for a database that cannot answer
   */
  public Optional<WriterFenceStartupException> check() {
    Optional<WriterFenceStartupException> problem;
    try (Connection c = dataSource.getConnection()) {
      bound(c);
      problem = judge(c);
    } catch (SQLException | RuntimeException e) {
      // A pool may throw its own unchecked exception (HikariCP's PoolInitializationException)
      // around the driver's SQLException: either way the database's words lead.
      return Optional.of(unreadable(e));
    }
    return problem;
  }

  private Optional<WriterFenceStartupException> judge(Connection c) throws SQLException {
    Found found = found(c);
    int expected = FenceSchema.VERSION;
    if (found.empty()) {
      return problem(
          "writer-fence: the SQL contract is not installed in schema "
              + schema
              + " (found none, expected version "
              + expected
              + "): every fenced call is unavailable until it is",
          "Install it with " + ways(c));
    }
    if (found.version() > expected) {
      return problem(
          "writer-fence: schema "
              + schema
              + " holds the SQL contract version "
              + found.version()
              + ", newer than version "
              + expected
              + " that this writer-fence expects",
          "Use a writer-fence that ships contract version "
              + found.version()
              + " or later; the contract is never downgraded");
    }
    if (!found.differences().isEmpty()) {
      List<String> shown = found.differences().stream().limit(DIFFERENCES_SHOWN).toList();
      return problem(
          "writer-fence: schema "
              + schema
              + " holds objects under the SQL contract's names of another shape than version "
              + found.version()
              + " (expected version "
              + expected
              + "): "
              + String.join("; ", shown)
              + (found.differences().size() > shown.size()
                  ? "; and " + (found.differences().size() - shown.size()) + " more"
                  : ""),
          "Move those objects aside, or set writer-fence.schema.name to a schema of the fence's"
              + " own, and install the contract with "
              + ways(c)
              + " (`writer-fence schema verify` lists every difference)");
    }
    if (found.version() < expected) {
      return problem(
          "writer-fence: schema "
              + schema
              + " holds the SQL contract version "
              + found.version()
              + ", older than version "
              + expected
              + " that this writer-fence expects: fenced calls may fail until it is upgraded",
          "Upgrade it in place, keeping every lease, with " + ways(c));
    }
    return Optional.empty();
  }

  private static Optional<WriterFenceStartupException> problem(String description, String action) {
    return Optional.of(new WriterFenceStartupException(description, action, null));
  }

  /** The database's reason first, then what could not be done and which settings to check. */
  private WriterFenceStartupException unreadable(Throwable e) {
    Optional<SQLException> refusal = SqlCauses.refusal(e);
    return new WriterFenceStartupException(
        "writer-fence: "
            + SqlCauses.describe(e)
            + ": the start-up check could not read the SQL contract in schema "
            + schema
            + (refusal.isPresent() ? "; fenced calls are unavailable on these connections" : ""),
        refusal
            .map(
                r ->
                    SqlCauses.whatToCheck(
                        r, dedicated ? "writer-fence.datasource" : "spring.datasource"))
            .orElse(
                "Check that the database answers and that the fence's role may use schema "
                    + schema
                    + " (docs/operations.md)"),
        e);
  }

  /** Every read on the connection bounded, so that a server that stops answering cannot hang. */
  private void bound(Connection c) {
    try {
      c.setNetworkTimeout(Runnable::run, timeoutMillis);
    } catch (SQLException | UnsupportedOperationException e) {
      LOG.debug("writer-fence: no network timeout on the start-up check's connection", e);
    }
  }

  /**
   * The installed contract by {@link InstalledContract#inspect}; for a role that may not create the
   * scratch schema that compares shapes (SQLState 42501), by its version alone.
   */
  private Found found(Connection c) throws SQLException {
    try {
      InstalledContract installed = InstalledContract.inspect(c, schema);
      return new Found(installed.isEmpty(), installed.version(), installed.differences());
    } catch (SQLException e) {
      if (!"42501".equals(e.getSQLState())) {
        throw e;
      }
      LOG.debug("writer-fence: no CREATE on the database; the contract's version alone", e);
      return versionAlone(c);
    }
  }

  private Found versionAlone(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT to_regnamespace(?) IS NOT NULL")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (!rs.getBoolean(1)) {
          return new Found(true, 0, List.of());
        }
      }
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + schema + ".schema_version()")) {
      rs.next();
      return new Found(false, rs.getInt(1), List.of());
    } catch (SQLException e) {
      if ("42883".equals(e.getSQLState())) { // undefined_function: no contract version at all
        return new Found(false, 0, List.of());
      }
      throw e;
    }
  }

  /** The documented ways to install, with this connection's URL and role in the CLI's command. */
  private String ways(Connection c) {
    String url = "jdbc:postgresql://HOST:5432/DATABASE";
    String role = "APP_ROLE";
    try {
      DatabaseMetaData meta = c.getMetaData();
      url = withoutParameters(meta.getURL());
      role = meta.getUserName();
    } catch (SQLException e) {
      LOG.debug("writer-fence: no URL for the install command", e);
    }
    return "one of: writer-fence.schema.initialize=true (installs it at start-up as the fence's"
        + " database user: a first try); the application's Flyway (the starter then migrates it in"
        + " a run of its own: writer-fence.schema.flyway.enabled=true, the default); Liquibase"
        + " including classpath:writer-fence/db/changelog/writer-fence.changelog.xml; or, as the"
        + " role that is to own it (password from $PGPASSWORD): writer-fence schema install"
        + " --jdbc-url "
        + url
        + " --user OWNER --schema "
        + schema
        + " --grant-to "
        + role
        + " (docs/operations.md)";
  }

  /** A URL's query parameters may hold a password: never logged. */
  private static String withoutParameters(String url) {
    int q = url == null ? -1 : url.indexOf('?');
    return q < 0 ? url : url.substring(0, q);
  }

  /**
   * What the schema holds.
   *
   * @param empty no table and no function: not installed
   * @param version {@code schema_version()}'s answer, 0 when none
   * @param differences differences of shape from the contract of that version (empty when not
   *     compared)
   */
  private record Found(boolean empty, int version, List<String> differences) {}
}
