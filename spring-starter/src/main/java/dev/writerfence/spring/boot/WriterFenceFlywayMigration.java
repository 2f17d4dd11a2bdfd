package dev.writerfence.spring.boot;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.InstalledContract;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL contract's own Flyway run, beside the application's: the core jar's {@code
 * classpath:writer-fence/db/migration} into the contract's schema ({@code
 * writer-fence.schema.name}) with a history table of its own there ({@code
 * writer-fence.schema.flyway.table}), so the application's {@code spring.flyway.*} locations,
 * history and version numbers stay as they are. The starter creates it when the application has a
 * {@link Flyway} bean and {@code writer-fence.schema.flyway.enabled} is not false; the fence is
 * created after it has run.
 *
 * <p>The run connects as the application's Flyway does ({@code spring.flyway.user} and {@code
 * .password}, or {@code writer-fence.schema.flyway.*} for this run alone), so an owner role
 * installs the contract while the fence connects as the application's role, which is granted
 * EXECUTE (ADR 63). A contract already at this jar's version is left alone, without a Flyway run,
 * when the run's role could not change it anyway (no CREATE on the database, or not the schema's
 * owner). A refusal for want of rights stops the start-up naming the ways out.
 *
 * <p>A contract installed before without Flyway ({@code writer-fence.schema.initialize}, the CLI)
 * is taken over: the run baselines at version 0 and applies V1 again, which is idempotent. A schema
 * of a newer contract version, or with objects of another shape under the contract's names, stops
 * the run before Flyway starts ({@link InstalledContract}).
 */
public final class WriterFenceFlywayMigration implements ContractMigration {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceFlywayMigration.class);

  /** Where the core jar keeps the contract's migrations. */
  public static final String LOCATION = "classpath:writer-fence/db/migration";

  private static final String PERMISSION_DENIED = "42501";

  private final WriterFenceProperties.Schema settings;
  private final DataSource runDataSource;

  /**
   * A run on the fence's own connections, as the fence's database user.
   *
   * @param settings {@code writer-fence.schema.*}
   */
  public WriterFenceFlywayMigration(WriterFenceProperties.Schema settings) {
    this(settings, null);
  }

  /**
   * @param settings {@code writer-fence.schema.*}
   * @param runDataSource the connections the run installs with (the contract's owner's), or {@code
   *     null} for the fence's own; when another, EXECUTE is granted to the fence's database user
   */
  public WriterFenceFlywayMigration(
      WriterFenceProperties.Schema settings, DataSource runDataSource) {
    this.settings = settings;
    this.runDataSource = runDataSource;
  }

  /**
   * Migrates the contract, unless it is up to date and the run's role may not change it.
   *
   * @param dataSource the fence's connections; its database user is granted the functions
   * @return the number of migrations applied (0 when up to date)
   * @throws IllegalStateException when the run's role lacks a right it needs (SQLState 42501),
   *     leading with the database's refusal and naming the settings that get past it; or when the
   *     schema holds a newer contract or objects of another shape
   * @throws org.flywaydb.core.api.FlywayException if the migration fails otherwise (the start-up
   *     stops)
   */
  @Override
  public int migrate(DataSource dataSource) {
    DataSource run = runDataSource != null ? runDataSource : dataSource;
    String schema = settings.getName();
    String table = settings.getFlyway().getTable();
    Target target = Target.read(run, schema);
    if (target.version() == FenceSchema.VERSION && !target.mayChange()) {
      LOG.info(
          "writer-fence: SQL contract version {} in schema {} is up to date: nothing to migrate"
              + " (role {} may not change it, and need not)",
          target.version(),
          schema,
          target.role());
      return 0;
    }
    try {
      requireInstallable(run, schema);
      MigrateResult result =
          Flyway.configure(WriterFenceFlywayMigration.class.getClassLoader())
              .dataSource(run)
              .locations(LOCATION)
              .schemas(schema)
              .defaultSchema(schema)
              .table(table)
              .placeholders(
                  Map.of(
                      "writer_fence_schema", schema, "writer_fence_role", grantee(run, dataSource)))
              .baselineOnMigrate(true)
              .baselineVersion("0")
              .callbacks(new QuietNotices())
              .load()
              .migrate();
      LOG.info(
          "writer-fence: SQL contract migrated by Flyway in schema {} as role {} (history {}.{}):"
              + " {} applied",
          schema,
          target.role(),
          schema,
          table,
          result.migrationsExecuted);
      return result.migrationsExecuted;
    } catch (RuntimeException e) {
      Optional<String> refusal = permissionDenied(e);
      if (refusal.isEmpty()) {
        throw e;
      }
      throw new IllegalStateException(waysOut(refusal.get(), target.role(), schema), e);
    }
  }

  /**
   * The role the contract's functions are granted to: the fence's database user. {@code
   * CURRENT_USER} when the run is the fence's own connections (the same role).
   */
  private static String grantee(DataSource run, DataSource fence) {
    if (run == fence) {
      return "CURRENT_USER";
    }
    try (Connection c = fence.getConnection()) {
      String user = c.getMetaData().getUserName();
      return '"' + user.replace("\"", "\"\"") + '"';
    } catch (SQLException e) {
      throw new IllegalStateException(
          "writer-fence: cannot read the fence's database user, to grant it the SQL contract's"
              + " functions: "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The database's refusal for want of a right, as the server said it: the deepest cause that is
   * one (Flyway's own message wraps the server's in lines of its own).
   */
  static Optional<String> permissionDenied(Throwable failure) {
    Throwable refusal = null;
    for (Throwable t = failure; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage());
      if ((t instanceof SQLException sql && PERMISSION_DENIED.equals(sql.getSQLState()))
          || message.contains("permission denied for database")
          || message.contains("permission denied for schema")) {
        refusal = t;
      }
    }
    return Optional.ofNullable(refusal).map(WriterFenceFlywayMigration::serverText);
  }

  /** The first line of the server's message, without the driver's {@code ERROR: }. */
  private static String serverText(Throwable t) {
    String line = String.valueOf(t.getMessage()).strip().lines().findFirst().orElse("");
    return line.toUpperCase(Locale.ROOT).startsWith("ERROR: ") ? line.substring(7) : line;
  }

  /** The refusal first, then what it stopped, then the two ways out. */
  static String waysOut(String refusal, String role, String schema) {
    return "writer-fence: "
        + refusal
        + ": role '"
        + role
        + "' may not install or upgrade the SQL contract in schema "
        + schema
        + " (the starter's Flyway run, before the fence is created). Either run it as the"
        + " contract's owner role: spring.flyway.user and spring.flyway.password (the"
        + " application's Flyway too) or writer-fence.schema.flyway.user and"
        + " writer-fence.schema.flyway.password (this run alone); or install the contract as the"
        + " owner with the CLI (writer-fence schema install --grant-to <the application's role>)"
        + " and set writer-fence.schema.flyway.enabled=false (docs/operations.md)";
  }

  /**
   * What the run's role finds: its name, the contract version installed (from the catalog, which
   * any role may read) and whether it may change the schema: CREATE on the database (which {@link
   * InstalledContract#inspect} needs for its scratch schema) and the schema's owner's rights, when
   * the schema exists.
   */
  private record Target(String role, int version, boolean mayChange) {
    static Target read(DataSource run, String schema) {
      try (Connection c = run.getConnection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT current_user,"
                      + " has_database_privilege(current_database(), 'CREATE')"
                      + " AND COALESCE((SELECT pg_has_role(n.nspowner, 'USAGE')"
                      + " FROM pg_catalog.pg_namespace n WHERE n.nspname = ?), true)")) {
        ps.setString(1, schema);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new Target(
              rs.getString(1), InstalledContract.readVersion(c, schema), rs.getBoolean(2));
        }
      } catch (SQLException e) {
        throw new IllegalStateException(
            "writer-fence: cannot read schema "
                + schema
                + " before migrating it: "
                + e.getMessage(),
            e);
      }
    }
  }

  /**
   * Flyway ignores applied migrations newer than its own ("future" ones) and, over a schema it did
   * not write, baselines and applies V1 again: it would downgrade a newer contract and "re-apply"
   * over a foreign table. The same check as {@code FenceSchema.install} runs first (ADR 50, 51).
   */
  private static void requireInstallable(DataSource dataSource, String schema) {
    try (Connection c = dataSource.getConnection()) {
      InstalledContract.inspect(c, schema).requireInstallable();
    } catch (SQLException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }
}
