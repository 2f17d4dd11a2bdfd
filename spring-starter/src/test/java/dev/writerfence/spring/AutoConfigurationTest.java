package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spring.actuate.WriterFenceEndpointWebExtension;
import dev.writerfence.spring.actuate.WriterFenceHealthIndicator;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceDataSource;
import dev.writerfence.spring.boot.WriterFenceMetricsAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceProperties;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.testing.ContractTampering;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.SwitchableDataSource;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.RetryConfig;
import io.github.resilience4j.retry.RetryRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;

/**
 * The auto-configuration on its own (no web server): property binding and validation, a user's
 * fence bean, the RetryRegistry, a dedicated data source, schema initialization, health DOWN.
 */
class AutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class,
                  WriterFenceMetricsAutoConfiguration.class,
                  WriterFenceAutoConfiguration.class,
                  WriterFenceActuatorAutoConfiguration.class))
          .withBean(DataSource.class, () -> EmbeddedDatabase.get().dataSource());

  /** A bean with one fenced method, to see which fence advises it. */
  public static class Job {
    @WriterFenced("{0}")
    public long run(String fence) {
      return WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L);
    }
  }

  @Test
  void propertiesBindToTheFence() {
    runner
        .withPropertyValues(
            "writer-fence.holder=upload",
            "writer-fence.ttl=2m",
            "writer-fence.renew-interval=5s",
            "writer-fence.query-timeout=1500ms",
            "writer-fence.retry.max-attempts=7",
            "writer-fence.retry.initial-interval=20ms",
            "writer-fence.retry.multiplier=1.5",
            "writer-fence.retry.max-interval=1s",
            "writer-fence.retry.max-wait=12s",
            "writer-fence.priority=-20",
            "writer-fence.queue.lapse=15s",
            "writer-fence.queue.poll-interval=25ms",
            "writer-fence.backend=lease")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WriterFenceProperties p = context.getBean(WriterFenceProperties.class);
              assertThat(p.getQueryTimeout()).isEqualTo(Duration.ofMillis(1500));
              WriterFence fence = context.getBean(WriterFence.class);
              assertThat(fence.defaultTtl()).isEqualTo(Duration.ofMinutes(2));
              assertThat(fence.renewInterval(Duration.ofMinutes(2)))
                  .contains(Duration.ofSeconds(5));
              assertThat(fence.defaultRetryPolicy())
                  .isEqualTo(
                      BusyRetryPolicy.defaults()
                          .withMaxAttempts(7)
                          .withInitialInterval(Duration.ofMillis(20))
                          .withMultiplier(1.5)
                          .withMaxInterval(Duration.ofSeconds(1))
                          .withMaxWait(Duration.ofSeconds(12)));
              assertThat(fence.defaultRetryPolicy().budget()).isEqualTo(Duration.ofSeconds(12));
              assertThat(fence.defaultPriority()).isEqualTo(-20);
              assertThat(fence.queueLapse()).isEqualTo(Duration.ofSeconds(15));
              assertThat(fence.queuePollInterval()).isEqualTo(Duration.ofMillis(25));
              String name = FenceNames.random("binding");
              FenceLease lease = fence.tryAcquire(FenceRequest.builder(name).build()).orElseThrow();
              assertThat(lease.holderLabel()).isEqualTo("upload@" + HolderLabel.instance());
              assertThat(lease.ttl()).isEqualTo(Duration.ofMinutes(2));
              fence.release(lease);
            });
  }

  /**
   * Spring sees the {@code -Dwriter-fence.*} system properties that configure the agent too: its
   * keys pass, while a key no mode reads stops the start-up naming it.
   */
  @Test
  void theAgentsKeysDoNotStopStartUp() {
    runner
        .withPropertyValues(
            "writer-fence.fence-name=corpus",
            "writer-fence.fence.methods=com.acme.sync.Uploader#upload*=corpus/upload",
            "writer-fence.audit.mode=log",
            "writer-fence.audit.report=/tmp/unfenced.json",
            "writer-fence.audit.paths=/srv/volume",
            "writer-fence.audit.require-fence=corpus",
            "writer-fence.audit.require-fence.aws-s3-v2=uploads")
        .run(context -> assertThat(context).hasNotFailed());
    runner
        .withPropertyValues("writer-fence.audit.modes=log")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("writer-fence.audit.modes: unknown setting"));
    runner
        .withPropertyValues("writer-fence.retry.maxAtempts=3")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("writer-fence.retry.maxatempts: unknown setting"));
  }

  /**
   * A per-client key names a client the agent audits: a typo ({@code gsc} for {@code gcs}) would
   * otherwise leave GCS writes to any fence, so it stops the start-up as the agent's does, naming
   * the bad id and the known ones.
   */
  @Test
  void anUnknownClientOfRequireFenceStopsStartUpNamingTheKnownClients() {
    runner
        .withPropertyValues("writer-fence.audit.require-fence.gsc=corpus")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining(
                        "writer-fence.audit.require-fence.gsc: unknown setting: 'gsc' is no known"
                            + " client of audit.require-fence.<client>; known clients: aws-s3-v2,"
                            + " aws-s3-v1, minio, gcs, azure-blob, file, lmdb, rocksdb"));
    runner
        .withPropertyValues("writer-fence.audit.require-fence.gcs=corpus")
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void defaultsAreTheCoresDefaults() {
    WriterFenceProperties p = new WriterFenceProperties();
    assertThat(p.getTtl()).isEqualTo(WriterFence.DEFAULT_TTL);
    assertThat(p.getRenewInterval()).isNull();
    assertThat(p.renewIntervalDuration()).isEmpty();
    assertThat(p.getQueryTimeout()).isEqualTo(WriterFence.DEFAULT_QUERY_TIMEOUT);
    assertThat(p.busyRetryPolicy()).isEqualTo(BusyRetryPolicy.defaults());
    assertThat(p.getSchema().getName()).isEqualTo(FenceSchema.DEFAULT_SCHEMA);
    assertThat(p.getSchema().getInitialize()).isNull();
    assertThat(p.getBackend()).isEqualTo("lease");
    assertThat(p.getAdvisory().getPoolSize()).isEqualTo(AdvisoryLockStore.DEFAULT_POOL_SIZE);
    assertThat(p.getPriority()).isZero();
    assertThat(p.getRetry().getMaxWait()).isNull();
    assertThat(p.getQueue().getLapse()).isEqualTo(WriterFence.DEFAULT_QUEUE_LAPSE);
    assertThat(p.getQueue().getPollInterval()).isEqualTo(WriterFence.DEFAULT_QUEUE_POLL_INTERVAL);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "             | PT10S",
        "off          | ",
        "false        | ",
        "250ms        | PT0.25S",
        "PT1M         | PT10S",
        "1m           | PT10S"
      })
  void renewIntervalIsPassedToTheFenceAndOffTurnsRenewalOff(String setting, String every) {
    ApplicationContextRunner r =
        setting == null
            ? runner
            : runner.withPropertyValues("writer-fence.renew-interval=" + setting);
    r.run(
        context -> {
          assertThat(context).hasNotFailed();
          WriterFence fence = context.getBean(WriterFence.class);
          // With the default TTL of 30 s: a third of it unless set; never longer than that.
          assertThat(fence.renewInterval(WriterFence.DEFAULT_TTL))
              .isEqualTo(java.util.Optional.ofNullable(every).map(Duration::parse));
        });
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "writer-fence.ttl=1500ms | writer-fence.ttl",
        "writer-fence.renew-interval=50ms | writer-fence.renew-interval",
        "writer-fence.renew-interval=sometimes | writer-fence.renew-interval",
        "writer-fence.renew-interval=OFF | writer-fence.renew-interval",
        "writer-fence.ttl=2d | writer-fence.ttl",
        "writer-fence.query-timeout=0s | writer-fence.query-timeout",
        "writer-fence.retry.max-attempts=0 | writer-fence.retry.max-attempts",
        "writer-fence.retry.initial-interval=0ms | writer-fence.retry.initial-interval",
        "writer-fence.retry.multiplier=0.5 | writer-fence.retry.multiplier",
        "writer-fence.retry.max-interval=1ms | writer-fence.retry.max-interval",
        "writer-fence.retry.max-wait=0ms | writer-fence.retry.max-wait",
        "writer-fence.priority=101 | writer-fence.priority",
        "writer-fence.queue.lapse=1500ms | writer-fence.queue.lapse",
        "writer-fence.queue.lapse=61s | writer-fence.queue.lapse",
        "writer-fence.queue.poll-interval=2s | writer-fence.queue.poll-interval",
        "writer-fence.schema.name=Bad-Name | writer-fence.schema.name",
        "writer-fence.backend=rowlock | writer-fence.backend",
        "writer-fence.advisory.pool-size=1 | writer-fence.advisory.pool-size",
        "writer-fence.datasource.pool-size=0 | writer-fence.datasource.pool-size",
        "writer-fence.datasource.pool-size=101 | writer-fence.datasource.pool-size",
        "writer-fence.holder=a\u200bb | writer-fence.holder",
        "writer-fence.datasource.url=jdbc:mysql://127.0.0.1/x | writer-fence.datasource.url"
      })
  void aBadValueStopsTheStartUpNamingTheProperty(String setting, String property) {
    runner
        .withPropertyValues(setting)
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable failure = context.getStartupFailure();
              StringBuilder messages = new StringBuilder();
              for (Throwable t = failure; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
              }
              assertThat(messages.toString()).contains(property + ": writer-fence:");
            });
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "writer-fence.tll=5s | writer-fence.tll",
        // the core's setting name; Spring nests it as writer-fence.schema.name
        "writer-fence.schema=other_fence | writer-fence.schema"
      })
  void anUnknownOrMisspelledSettingStopsTheStartUpNamingIt(String setting, String property) {
    runner
        .withPropertyValues(setting)
        .run(
            context -> {
              assertThat(context).hasFailed();
              StringBuilder messages = new StringBuilder();
              for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
              }
              assertThat(messages.toString()).contains(property);
            });
  }

  @Test
  void aUsersFenceBeanWinsAndTheAdviceUsesIt() {
    List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
    runner
        .withBean(Job.class)
        .withBean(
            WriterFence.class,
            () ->
                WriterFence.builder(EmbeddedDatabase.get().dataSource())
                    .defaultHolderLabel("users-own")
                    .listener(
                        new FenceListener() {
                          @Override
                          public void acquired(FenceLease lease, int attempts, Duration waited) {
                            events.add(lease.holderLabel());
                          }
                        })
                    .build())
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(WriterFence.class);
              assertThat(context.getBean(Job.class).run(FenceNames.random("user-bean")))
                  .isPositive();
              assertThat(events).containsExactly("users-own@" + HolderLabel.instance());
            });
  }

  @Test
  void busyRetryFromTheApplicationsRetryRegistry() {
    RetryConfig config = fourAttemptsExponential();
    runner
        .withBean(RetryRegistry.class, () -> RetryRegistry.of(Map.of("writer-fence", config)))
        .withPropertyValues("writer-fence.retry.max-attempts=9")
        .run(
            context ->
                assertThat(context.getBean(WriterFence.class).defaultRetryPolicy())
                    .isEqualTo(
                        new BusyRetryPolicy(
                            4, Duration.ofMillis(100), 3.0, Duration.ofMillis(500), 0.0)));
    // Without a 'writer-fence' retry in the registry, writer-fence.retry.* applies.
    runner
        .withBean(RetryRegistry.class, RetryRegistry::ofDefaults)
        .withPropertyValues("writer-fence.retry.max-attempts=9")
        .run(
            context ->
                assertThat(context.getBean(WriterFence.class).defaultRetryPolicy().maxAttempts())
                    .isEqualTo(9));
  }

  /** Four attempts, waits of 100 ms growing threefold up to 500 ms. */
  private static RetryConfig fourAttemptsExponential() {
    return RetryConfig.custom()
        .maxAttempts(4)
        .intervalFunction(
            IntervalFunction.ofExponentialBackoff(
                Duration.ofMillis(100), 3.0, Duration.ofMillis(500)))
        .build();
  }

  @Test
  void retryMaxWaitBoundsTheRetryFromTheRegistry() {
    RetryConfig config = fourAttemptsExponential();
    runner
        .withBean(RetryRegistry.class, () -> RetryRegistry.of(Map.of("writer-fence", config)))
        .withPropertyValues("writer-fence.retry.max-wait=7s", "writer-fence.retry.max-attempts=9")
        .run(
            context -> {
              BusyRetryPolicy policy = context.getBean(WriterFence.class).defaultRetryPolicy();
              assertThat(policy)
                  .as("the registry's attempts and waits, the budget of retry.max-wait")
                  .isEqualTo(
                      new BusyRetryPolicy(
                              4, Duration.ofMillis(100), 3.0, Duration.ofMillis(500), 0.0)
                          .withMaxWait(Duration.ofSeconds(7)));
              assertThat(policy.budget()).isEqualTo(Duration.ofSeconds(7));
            });
  }

  @Test
  void queueBusyEarlyIsOffUnlessSetOn() {
    runner.run(
        context -> assertThat(context.getBean(WriterFence.class).queueBusyEarly()).isFalse());
    runner
        .withPropertyValues("writer-fence.queue.busy-early=true")
        .run(context -> assertThat(context.getBean(WriterFence.class).queueBusyEarly()).isTrue());
  }

  @Test
  void theFenceNeverUsesATransactionBoundConnection() {
    DataSource plain = EmbeddedDatabase.get().dataSource();
    runner
        .withAllowBeanDefinitionOverriding(true)
        .withBean(DataSource.class, () -> new TransactionAwareDataSourceProxy(plain))
        .run(
            context ->
                assertThat(context.getBean(WriterFenceDataSource.class).dataSource())
                    .isSameAs(plain));
  }

  @Test
  void aDedicatedDataSourceIsUsedAndTheHealthIsDownWhenItsDatabaseIsDown() {
    int closedPort;
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = s.getLocalPort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    runner
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withBean(Job.class)
        .withPropertyValues(
            "writer-fence.datasource.url=jdbc:postgresql://127.0.0.1:" + closedPort + "/postgres",
            "writer-fence.datasource.username=postgres",
            "writer-fence.query-timeout=1s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WriterFenceDataSource.class).isDedicated()).isTrue();
              var health = context.getBean(WriterFenceHealthIndicator.class).health(true);
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              String name = FenceNames.random("down");
              assertThatThrownBy(() -> context.getBean(Job.class).run(name))
                  .isInstanceOf(WriterFenceUnavailableException.class);
              assertThat(
                      context
                          .getBean(MeterRegistry.class)
                          .get(MicrometerFenceListener.UNAVAILABLE)
                          .tag("fence", name)
                          .counter()
                          .count())
                  .isEqualTo(1.0);
            });
  }

  @Test
  void aDedicatedPoolHasTheConfiguredSizeAndOneIsRefusedWithQueueListen() {
    String url = EmbeddedDatabase.get().jdbcUrl();
    runner
        .withPropertyValues(
            "writer-fence.datasource.url=" + url,
            "writer-fence.datasource.username=postgres",
            "writer-fence.datasource.pool-size=7")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              DataSource pool = context.getBean(WriterFenceDataSource.class).dataSource();
              assertThat(((com.zaxxer.hikari.HikariDataSource) pool).getMaximumPoolSize())
                  .isEqualTo(7);
            });
    runner
        .withPropertyValues(
            "writer-fence.datasource.url=" + url,
            "writer-fence.datasource.pool-size=1",
            "writer-fence.queue.listen=true")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("writer-fence.datasource.pool-size")
                    .hasMessageContaining("not allowed with queue.listen=true: at least 2"));
  }

  @Test
  void healthGoesDownWhenTheDatabaseGoesAway() {
    SwitchableDataSource switchable = new SwitchableDataSource(EmbeddedDatabase.get().dataSource());
    runner
        .withAllowBeanDefinitionOverriding(true)
        .withBean(DataSource.class, () -> switchable)
        .run(
            context -> {
              WriterFenceHealthIndicator health = context.getBean(WriterFenceHealthIndicator.class);
              assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
              switchable.cutOff();
              try {
                assertThat(health.health(true).getStatus()).isEqualTo(Status.DOWN);
              } finally {
                switchable.restore();
              }
              assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
            });
  }

  @Test
  void theEndpointAnswers503WithTheReasonWhenTheSchemaIsMissingAnd400ForABadName() {
    String absent = "wf_absent_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    runner
        .withPropertyValues(
            "writer-fence.schema.name=" + absent,
            "management.endpoints.web.exposure.include=writerfence")
        .run(
            context -> {
              WriterFenceEndpointWebExtension web =
                  context.getBean(WriterFenceEndpointWebExtension.class);
              WebEndpointResponse<Object> all = web.leases();
              assertThat(all.getStatus()).isEqualTo(503);
              assertThat(String.valueOf(all.getBody()))
                  .contains("'" + absent + "' is not installed");
              assertThat(web.lease("corpus").getStatus()).isEqualTo(503);
              assertThat(web.lease(" padded ").getStatus()).isEqualTo(400);
            });
  }

  @Test
  void initializingOverANewerContractVersionStopsTheStartNamingBoth() {
    String schema = "wf_newer_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    EmbeddedDatabase db = EmbeddedDatabase.get();
    int newer = FenceSchema.VERSION + 1;
    db.execute(
        ContractTampering.version1Alone(schema),
        ContractTampering.schemaVersionAnswering(schema, newer));

    runner
        .withPropertyValues(
            "writer-fence.schema.name=" + schema, "writer-fence.schema.initialize=true")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .hasMessageContaining(ContractTampering.newerVersionRefused(newer));
            });
    assertThat(db.queryValue(Integer.class, "SELECT " + schema + ".schema_version()"))
        .as("not downgraded")
        .isEqualTo(newer);
  }

  @Test
  void schemaIsInstalledWhenAskedAndNotByDefaultOnPostgresql() {
    String installed = "wf_init_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    runner
        .withPropertyValues(
            "writer-fence.schema.name=" + installed, "writer-fence.schema.initialize=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(WriterFenceHealthIndicator.class).health(true).getStatus())
                  .isEqualTo(Status.UP);
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease = fence.tryAcquire(FenceRequest.builder("x").build()).orElseThrow();
              assertThat(fence.release(lease)).isTrue();
            });
    String absent = "wf_absent_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    runner
        .withPropertyValues("writer-fence.schema.name=" + absent)
        .run(
            context -> {
              var health = context.getBean(WriterFenceHealthIndicator.class).health(true);
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(String.valueOf(health.getDetails().get("error")))
                  .contains(absent + " is missing");
              assertThat(
                      EmbeddedDatabase.get()
                          .queryValue(Boolean.class, "SELECT to_regnamespace(?) IS NULL", absent))
                  .isTrue();
            });
  }

  @Test
  void disabledMeansNoFence() {
    runner
        .withPropertyValues("writer-fence.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(WriterFence.class));
  }
}
