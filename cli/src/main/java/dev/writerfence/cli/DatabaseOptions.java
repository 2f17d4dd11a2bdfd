package dev.writerfence.cli;

import dev.writerfence.schema.FenceSchema;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code --jdbc-url}, {@code --user}, {@code --password}, {@code --schema}: where the lease is. A
 * command mixes in {@link RequiredUrl} when it needs a database named ({@code status}, {@code
 * schema install}), or {@link OptionalUrl} when it can start one of its own ({@code demo}), so that
 * the usage shows {@code --jdbc-url} as required exactly when it is.
 */
public abstract class DatabaseOptions {
  private static final String URL_DESCRIPTION = "JDBC URL: jdbc:postgresql://HOST:PORT/DB";

  /** {@code --jdbc-url} must be given. */
  public static final class RequiredUrl extends DatabaseOptions {
    @Option(
        names = "--jdbc-url",
        paramLabel = "URL",
        required = true,
        description = URL_DESCRIPTION)
    String jdbcUrl;

    @Override
    public String jdbcUrl() {
      return jdbcUrl;
    }
  }

  /** {@code --jdbc-url} may be left out; the command then uses a database of its own. */
  public static final class OptionalUrl extends DatabaseOptions {
    @Option(
        names = "--jdbc-url",
        paramLabel = "URL",
        description =
            URL_DESCRIPTION + " (default: an embedded PostgreSQL on 127.0.0.1, removed afterwards)")
    String jdbcUrl;

    @Override
    public String jdbcUrl() {
      return jdbcUrl;
    }
  }

  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandSpec mixee;

  /** Only the two kinds above. */
  DatabaseOptions() {}

  @Option(
      names = "--user",
      paramLabel = "USER",
      defaultValue = "${env:PGUSER}",
      description = "database role (default: $PGUSER, else the driver's default)")
  String user;

  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      defaultValue = "${env:PGPASSWORD}",
      showDefaultValue = CommandLine.Help.Visibility.NEVER,
      description = "its password (default: $PGPASSWORD)")
  String password;

  @Option(
      names = "--schema",
      paramLabel = "SCHEMA",
      defaultValue = FenceSchema.DEFAULT_SCHEMA,
      description =
          "schema of the SQL contract, a lower-case SQL identifier (default: ${DEFAULT-VALUE})")
  String schema;

  /**
   * Checks the values; call before anything is done. Whether {@code --jdbc-url} was given at all
   * picocli has checked already.
   *
   * @throws ParameterException naming the bad value and what is allowed (exit status 2)
   */
  public void validate() {
    String jdbcUrl = jdbcUrl();
    if (jdbcUrl != null && (!jdbcUrl.startsWith("jdbc:postgresql:") || !parses(jdbcUrl))) {
      throw usage(
          "--jdbc-url '"
              + jdbcUrl
              + "' is not allowed: a PostgreSQL JDBC URL such as"
              + " jdbc:postgresql://127.0.0.1:5432/app");
    }
    try {
      FenceSchema.checkIdentifier("--schema", schema);
    } catch (IllegalArgumentException e) {
      throw usage(e.getMessage());
    }
  }

  /** pgjdbc's own logger, held so that its level stays set while the driver parses. */
  private static final Logger PGJDBC_LOG = Logger.getLogger("org.postgresql");

  /** Whether pgjdbc can parse the URL; the driver's own warning about it is not printed. */
  private static boolean parses(String url) {
    synchronized (PGJDBC_LOG) {
      Level level = PGJDBC_LOG.getLevel();
      PGJDBC_LOG.setLevel(Level.OFF);
      try {
        return org.postgresql.Driver.parseURL(url, null) != null;
      } finally {
        PGJDBC_LOG.setLevel(level);
      }
    }
  }

  /**
   * @param message what is wrong
   * @return a usage error of the command these options belong to
   */
  ParameterException usage(String message) {
    return new ParameterException(mixee.commandLine(), message);
  }

  /**
   * @return the JDBC URL, or {@code null} when none was given
   */
  public abstract String jdbcUrl();

  /**
   * @return the role, or {@code null}
   */
  public String user() {
    return user;
  }

  /**
   * @return the password, or {@code null}
   */
  public String password() {
    return password;
  }

  /**
   * @return the schema of the SQL contract
   */
  public String schema() {
    return schema;
  }

  /**
   * @return an unpooled data source for the given URL and role
   */
  public DataSource dataSource() {
    return dataSource(jdbcUrl(), user, password);
  }

  /**
   * @param url a jdbc:postgresql: URL
   * @param user a role, or {@code null}
   * @param password its password, or {@code null}
   * @return an unpooled data source that gives up connecting after 10 seconds
   */
  public static DataSource dataSource(String url, String user, String password) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    if (user != null && !user.isEmpty()) {
      ds.setUser(user);
    }
    if (password != null && !password.isEmpty()) {
      ds.setPassword(password);
    }
    ds.setConnectTimeout(10);
    ds.setLoginTimeout(10);
    ds.setApplicationName("writer-fence-cli");
    return ds;
  }
}
