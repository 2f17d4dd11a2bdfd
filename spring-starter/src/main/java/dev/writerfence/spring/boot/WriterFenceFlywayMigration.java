package dev.writerfence.spring.boot;

import dev.writerfence.schema.InstalledContract;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SQL contract's own Flyway run, beside the application's: the core jar's {@code
 * classpath:writer-fence/db/migration} into the contract's schema ({@code
 * writer-fence.schema.name}) with a history table of its own there ({@code
 * writer-fence.schema.flyway.table}), so the application's {@code spring.flyway.*} (its locations,
 * its history, its version numbers) stay as they are. The starter creates it when the application
 * has a {@link Flyway} bean and {@code writer-fence.schema.flyway.enabled} is not false; the fence
 * is created after it has run.
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

  private final WriterFenceProperties.Schema settings;

  /**
   * @param settings {@code writer-fence.schema.*}
   */
  public WriterFenceFlywayMigration(WriterFenceProperties.Schema settings) {
    this.settings = settings;
  }

  /**
   * Migrates the contract on {@code dataSource}, as its user, who is granted the functions.
   *
   * @param dataSource the fence's connections
   * @return the number of migrations applied (0 when up to date)
   * @throws org.flywaydb.core.api.FlywayException if the migration fails (the start-up stops)
   */
  @Override
  public int migrate(DataSource dataSource) {
    String schema = settings.getName();
    String table = settings.getFlyway().getTable();
    requireInstallable(dataSource, schema);
    MigrateResult result =
        Flyway.configure(WriterFenceFlywayMigration.class.getClassLoader())
            .dataSource(dataSource)
            .locations(LOCATION)
            .schemas(schema)
            .defaultSchema(schema)
            .table(table)
            .placeholders(
                Map.of("writer_fence_schema", schema, "writer_fence_role", "CURRENT_USER"))
            .baselineOnMigrate(true)
            .baselineVersion("0")
            .load()
            .migrate();
    LOG.info(
        "writer-fence: SQL contract migrated by Flyway in schema {} (history {}.{}): {} applied",
        schema,
        schema,
        table,
        result.migrationsExecuted);
    return result.migrationsExecuted;
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
