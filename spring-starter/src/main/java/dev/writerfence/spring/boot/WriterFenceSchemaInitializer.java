package dev.writerfence.spring.boot;

import dev.writerfence.schema.FenceSchema;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.jdbc.EmbeddedDatabaseConnection;

/**
 * Installs the SQL contract at start-up when {@code writer-fence.schema.initialize} is {@code true}
 * or, when unset, when Spring Boot counts the database as embedded ({@link
 * EmbeddedDatabaseConnection#isEmbedded}: in-memory H2, HSQLDB, Derby; never a PostgreSQL server).
 * The install is idempotent and safe from several processes at once; it runs as the fence's
 * database user, who then owns the lease table. The fence is created after it.
 */
public final class WriterFenceSchemaInitializer implements InitializingBean {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceSchemaInitializer.class);

  private final DataSource dataSource;
  private final WriterFenceProperties.Schema settings;
  private boolean installed;

  /**
   * @param dataSource the fence's data source
   * @param settings {@code writer-fence.schema.*}
   */
  public WriterFenceSchemaInitializer(
      DataSource dataSource, WriterFenceProperties.Schema settings) {
    this.dataSource = dataSource;
    this.settings = settings;
  }

  @Override
  public void afterPropertiesSet() throws SQLException {
    Boolean initialize = settings.getInitialize();
    boolean run =
        initialize != null ? initialize : EmbeddedDatabaseConnection.isEmbedded(dataSource);
    if (!run) {
      return;
    }
    FenceSchema.defaults().schema(settings.getName()).install(dataSource);
    installed = true;
    LOG.info("writer-fence: SQL contract installed or up to date in schema {}", settings.getName());
  }

  /**
   * @return whether the contract was installed at start-up
   */
  public boolean installed() {
    return installed;
  }
}
