package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.TestFence;
import dev.writerfence.testing.spring.TestFenceConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/**
 * The test kit's {@link TestFenceConfiguration} in a {@code @SpringBootTest} of the starter: the
 * starter's advice runs on the context's test fence, and the application's properties that point at
 * a production server (port 1 here, where nothing listens) are overridden by the kit's embedded
 * PostgreSQL, also for a pool of the fence's own; the schema initializer connects there at
 * start-up, so a start-up at all proves it. Spring Boot 4 here; consumer-check's kit consumer runs
 * the same on Spring Boot 3.5.
 */
@SpringBootTest(
    classes = TestFenceConfigurationTest.App.class,
    properties = {
      "spring.datasource.url=jdbc:postgresql://127.0.0.1:1/production",
      "spring.datasource.username=app",
      "writer-fence.datasource.url=jdbc:postgresql://127.0.0.1:1/fences",
      "writer-fence.datasource.username=fencer",
      "writer-fence.schema.initialize=true",
      "spring.flyway.enabled=false",
      "spring.liquibase.enabled=false",
      "logging.level.root=WARN"
    })
@Import(TestFenceConfiguration.class)
class TestFenceConfigurationTest {
  static final String FENCE = "test-fence-configuration";

  @Autowired TestFence fence;
  @Autowired WriterFence writerFence;
  @Autowired Environment environment;
  @Autowired Job job;

  @Test
  void theApplicationsFenceIsTheTestFence() {
    assertThat(writerFence).isSameAs(fence.fence());

    FenceLease lease = job.run();

    assertThat(lease.fenceName()).isEqualTo(FENCE);
    assertThat(lease.fencingToken()).isPositive();
    assertThat(
            EmbeddedDatabase.get()
                .queryValue(
                    Long.class,
                    "SELECT fencing_token FROM writer_fence.lease_status WHERE fence_name = ?",
                    fence.inDatabase(FENCE)))
        .as("the advice's lease row, under the context's prefix")
        .isEqualTo(lease.fencingToken());
  }

  @Test
  void theApplicationsDatabaseIsTheKitsEmbeddedPostgres() {
    assertThat(fence.jdbcUrl()).startsWith("jdbc:postgresql://127.0.0.1:").endsWith("/postgres");
    assertThat(environment.getProperty("spring.datasource.url")).isEqualTo(fence.jdbcUrl());
    assertThat(environment.getProperty("spring.datasource.username")).isEqualTo("postgres");
    assertThat(environment.getProperty("writer-fence.datasource.url")).isEqualTo(fence.jdbcUrl());
    assertThat(environment.getProperty("writer-fence.datasource.username")).isEqualTo("postgres");
  }

  @Test
  void theAdvisedCallGivesUpWhileTheKitHoldsTheFence() {
    try (TestFence.Rival other = fence.holdBusy(FENCE)) {
      assertThat(other.fencingToken()).isPositive();
      assertThatThrownBy(job::run).isInstanceOf(WriterFenceBusyException.class);
    }
    assertThat(job.run().fencingToken()).as("free again once the rival is closed").isPositive();
  }

  /** A bean the starter advises. */
  public static class Job {
    /**
     * @return the lease it ran under, as seen inside
     */
    @WriterFenced(value = FENCE, holder = "job")
    public FenceLease run() {
      return WriterFence.current(FENCE).orElseThrow();
    }
  }

  @SpringBootApplication(scanBasePackages = "none")
  static class App {
    @Bean
    Job job() {
      return new Job();
    }
  }
}
