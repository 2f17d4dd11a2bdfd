package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.spring.actuate.WriterFenceHealthIndicator;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.testing.EmbeddedDatabase;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * An application's own Liquibase changelog that includes the core jar's contract changelog: both
 * its changeset and the contract's are applied, in its one DATABASECHANGELOG, before the fence is
 * created; a schema and role of the application's choosing come from {@code
 * spring.liquibase.parameters.*}.
 */
class LiquibaseChangelogTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @Test
  void theApplicationsChangesetAndTheContractsAreBothAppliedBeforeTheFenceExists() {
    String database = freshDatabase();
    String schema = "wf_lb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    runner(database)
        .withPropertyValues(
            "spring.liquibase.parameters.writer_fence_schema=" + schema,
            "writer-fence.schema.name=" + schema)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              JdbcTemplate jdbc = new JdbcTemplate(db.dataSource(database, "postgres", null));
              assertThat(
                      jdbc.queryForList(
                          "SELECT id || '/' || author FROM databasechangelog ORDER BY orderexecuted",
                          String.class))
                  .containsExactly(
                      "app-1/app",
                      "writer-fence-v1/writer-fence",
                      "writer-fence-v2/writer-fence",
                      "writer-fence-v3/writer-fence",
                      "writer-fence-v4/writer-fence",
                      "writer-fence-v5/writer-fence",
                      "writer-fence-v6/writer-fence");
              assertThat(jdbc.queryForObject("SELECT count(*) FROM app_order", Integer.class))
                  .isZero();
              assertThat(context.getBean(WriterFenceHealthIndicator.class).health(true).getStatus())
                  .isEqualTo(Status.UP);
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease =
                  fence.tryAcquire(FenceRequest.builder("orders").build()).orElseThrow();
              assertThat(
                      jdbc.queryForObject(
                          "SELECT fencing_token FROM " + schema + ".lease WHERE fence_name = ?",
                          Long.class,
                          "orders"))
                  .isEqualTo(lease.fencingToken());
              assertThat(fence.release(lease)).isTrue();
            });
  }

  @Test
  void withoutParametersTheContractGoesToItsDefaultSchema() {
    String database = freshDatabase();
    runner(database)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WriterFenceHealthIndicator.class).health(true).getStatus())
                  .isEqualTo(Status.UP);
              JdbcTemplate jdbc = new JdbcTemplate(db.dataSource(database, "postgres", null));
              assertThat(
                      jdbc.queryForObject(
                          "SELECT to_regclass('writer_fence.lease') IS NOT NULL", Boolean.class))
                  .isTrue();
            });
  }

  private String freshDatabase() {
    String database = "wf_lb_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    db.execute("CREATE DATABASE " + database + " ENCODING 'UTF8' TEMPLATE template0");
    return database;
  }

  private ApplicationContextRunner runner(String database) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                LiquibaseAutoConfiguration.class,
                WriterFenceAutoConfiguration.class,
                WriterFenceActuatorAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(database),
            "spring.datasource.username=postgres",
            "spring.liquibase.change-log=classpath:db/changelog/app.changelog.xml");
  }
}
