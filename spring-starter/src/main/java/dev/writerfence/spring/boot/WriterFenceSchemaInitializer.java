package dev.writerfence.spring.boot;

import dev.writerfence.schema.FenceSchema;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;

/**
 * Brings the SQL contract into the database at start-up, before the fence is created: by the
 * contract's own migration run ({@link ContractMigration}, the starter's Flyway run when the
 * application migrates with Flyway), and by an install when {@code writer-fence.schema.initialize}
 * is {@code true} or, when unset and no migration ran, when Spring Boot counts the database as
 * embedded ({@link EmbeddedDatabaseConnection#isEmbedded}: in-memory H2, HSQLDB, Derby; never a
 * PostgreSQL server). Both are idempotent and safe from several processes at once; they run as the
 * fence's database user, who then owns the lease table.
 */
public final class WriterFenceSchemaInitializer implements InitializingBean {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceSchemaInitializer.class);

  private final DataSource dataSource;
  private final WriterFenceProperties.Schema settings;
  private final ContractMigration migration;
  private boolean installed;

  /**
   * @param dataSource the fence's data source
   * @param settings {@code writer-fence.schema.*}
   */
  public WriterFenceSchemaInitializer(
      DataSource dataSource, WriterFenceProperties.Schema settings) {
    this(dataSource, settings, null);
  }

  /**
   * @param dataSource the fence's data source
   * @param settings {@code writer-fence.schema.*}
   * @param migration the contract's migration run, or {@code null} for none
   */
  public WriterFenceSchemaInitializer(
      DataSource dataSource, WriterFenceProperties.Schema settings, ContractMigration migration) {
    this.dataSource = dataSource;
    this.settings = settings;
    this.migration = migration;
  }

  @Override
  public void afterPropertiesSet() throws SQLException {
    if (migration != null) {
      migration.migrate(dataSource);
      installed = true;
    }
    Boolean initialize = settings.getInitialize();
    boolean run =
        initialize != null
            ? initialize
            : migration == null && EmbeddedDatabaseConnection.isEmbedded(dataSource);
    if (!run) {
      return;
    }
    FenceSchema.defaults().schema(settings.getName()).install(dataSource);
    installed = true;
    LOG.info("writer-fence: SQL contract installed or up to date in schema {}", settings.getName());
  }

  /**
   * @return whether the contract was installed or migrated at start-up
   */
  public boolean installed() {
    return installed;
  }
}
