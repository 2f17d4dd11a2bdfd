package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.LeaseRpcCompatibility;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.store.BackendRegistry;
import dev.writerfence.store.rpc.LeaseRpcStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code writer-fence.backend=lease-rpc} in Spring: the backend comes from core's registry as in
 * every other mode, so the starter builds its fence on a deployed lease-RPC pair (core's optional
 * compatibility migration, in a database of its own) without renewal, and a fenced call holds the
 * pair's lease while it runs. An unknown backend stops the start-up naming the registered ones.
 */
class LeaseRpcBackendTest {
  private static final String DATABASE = "wf_spring_lease_rpc";
  private static DataSource deployment;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(AopAutoConfiguration.class, WriterFenceAutoConfiguration.class))
          .withBean(DataSource.class, () -> deployment)
          .withBean(PairWriter.class, () -> new PairWriter(deployment));

  @BeforeAll
  static void deployThePair() throws Exception {
    EmbeddedDatabase pg = EmbeddedDatabase.get();
    pg.execute("DROP DATABASE IF EXISTS " + DATABASE, "CREATE DATABASE " + DATABASE);
    deployment = pg.dataSource(DATABASE, "postgres", null);
    FenceSchema schema = FenceSchema.defaults();
    schema.install(deployment);
    new LeaseRpcCompatibility(schema, "spring_lease_rpc").install(deployment);
  }

  @Test
  void theStarterFencesACallOnTheDeployedPair() {
    runner
        .withPropertyValues(
            "writer-fence.backend=lease-rpc",
            "writer-fence.ttl=60s",
            "writer-fence.lease-rpc.fence-name-parameter=p_fence_name")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WriterFence fence = context.getBean(WriterFence.class);
              LeaseStore store = context.getBean(LeaseStore.class);
              assertThat(store).isInstanceOf(LeaseRpcStore.class);
              assertThat(FencedCalls.store(fence)).isSameAs(store);
              assertThat(fence.renewInterval(Duration.ofSeconds(60))).as("no renewal").isEmpty();

              String name = FenceNames.random("spring-rpc");
              assertThat(context.getBean(PairWriter.class).otherWriterBusy(name)).isTrue();
              // Released when the call returned: the other writer takes the row now.
              StoreLease after =
                  PairWriter.otherWriter(deployment)
                      .acquire(name, UUID.randomUUID(), "other", Duration.ofSeconds(5))
                      .orElseThrow();
              assertThat(after.release()).isTrue();
            });
  }

  @Test
  void anUnknownBackendStopsTheStartUpNamingTheRegisteredOnes() {
    runner
        .withPropertyValues("writer-fence.backend=redis")
        .run(
            context -> {
              assertThat(context).hasFailed();
              StringBuilder messages = new StringBuilder();
              for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
              }
              assertThat(messages.toString())
                  .contains("writer-fence.backend: writer-fence: backend 'redis' is not allowed")
                  .contains("lease, advisory or lease-rpc")
                  .contains(BackendRegistry.allowed());
            });
  }
}
