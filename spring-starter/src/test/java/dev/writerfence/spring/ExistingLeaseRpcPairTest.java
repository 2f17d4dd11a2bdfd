package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.spi.StoreLease;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The starter with {@code writer-fence.backend=lease-rpc} on an existing deployment's own pair: the
 * fault suite's fixture (its table, its two SECURITY DEFINER functions, no writer-fence schema at
 * all), the application connecting as a role that may only execute them. A fenced call holds the
 * pair's row while it runs, so another writer of the pair is busy, and frees it when it returns.
 */
class ExistingLeaseRpcPairTest {
  private static final String DATABASE = "wf_spring_existing_rpc";
  private static final String ROLE = "wf_spring_rpc_app";

  /** The fixture the fault suite's interop legs run against, read where that module keeps it. */
  private static final Path FIXTURE =
      Path.of(
          "..", "fault-suite", "src", "test", "resources", "lease-rpc", "existing-deployment.sql");

  private static DataSource application;

  @BeforeAll
  static void deployTheExistingPair() throws Exception {
    EmbeddedDatabase pg = EmbeddedDatabase.get();
    pg.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '"
            + ROLE
            + "') THEN CREATE ROLE "
            + ROLE
            + " LOGIN PASSWORD '"
            + ROLE
            + "'; END IF; END $$");
    pg.execute("DROP DATABASE IF EXISTS " + DATABASE, "CREATE DATABASE " + DATABASE);
    String sql = Files.readString(FIXTURE, StandardCharsets.UTF_8).replace("${app_role}", ROLE);
    try (Connection c = pg.dataSource(DATABASE, "postgres", null).getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
    application = pg.dataSource(DATABASE, ROLE, ROLE);
  }

  @Test
  void theStarterFencesACallOnAnExistingDeploymentsPair() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(AopAutoConfiguration.class, WriterFenceAutoConfiguration.class))
        .withBean(DataSource.class, () -> application)
        .withBean(PairWriter.class, () -> new PairWriter(application))
        .withPropertyValues(
            "writer-fence.backend=lease-rpc",
            "writer-fence.ttl=60s",
            "writer-fence.lease-rpc.fence-name-parameter=p_fence_name")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              String name = FenceNames.random("existing-rpc");
              assertThat(context.getBean(PairWriter.class).otherWriterBusy(name))
                  .as("the other writer is busy while the fenced call runs")
                  .isTrue();
              StoreLease after =
                  PairWriter.otherWriter(application)
                      .acquire(name, UUID.randomUUID(), "other", Duration.ofSeconds(5))
                      .orElseThrow();
              assertThat(after.release()).isTrue();
            });
  }
}
