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
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A Flyway user runs the migration shipped in the core jar; the fence then works. */
class FlywayMigrationTest {

  @Test
  void flywayInstallsTheContractFromTheCoreJar() {
    String database = "wf_flyway_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    EmbeddedDatabase db = EmbeddedDatabase.get();
    db.execute("CREATE DATABASE " + database + " ENCODING 'UTF8' TEMPLATE template0");
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                FlywayAutoConfiguration.class,
                WriterFenceAutoConfiguration.class,
                WriterFenceActuatorAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(database),
            "spring.datasource.username=postgres",
            "spring.flyway.locations=classpath:writer-fence/db/migration",
            "spring.flyway.placeholders.writer_fence_schema=writer_fence",
            "spring.flyway.placeholders.writer_fence_role=CURRENT_USER",
            "writer-fence.schema.initialize=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WriterFenceHealthIndicator.class).health(true).getStatus())
                  .isEqualTo(Status.UP);
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease =
                  fence
                      .tryAcquire(FenceRequest.builder("corpus").holderLabel("flyway").build())
                      .orElseThrow();
              assertThat(lease.fencingToken()).isEqualTo(1);
              assertThat(fence.release(lease)).isTrue();
            });
    assertThat(
            EmbeddedDatabase.get()
                .queryValue(
                    String.class, "SELECT datname FROM pg_database WHERE datname = ?", database))
        .isEqualTo(database);
  }
}
