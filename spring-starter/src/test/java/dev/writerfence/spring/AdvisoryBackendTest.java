package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.spring.actuate.WriterFenceHealthIndicator;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceDataSource;
import dev.writerfence.spring.boot.WriterFenceMetricsAutoConfiguration;
import dev.writerfence.store.advisory.AdvisoryKeys;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.PgBouncer;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code writer-fence.backend=advisory}: the fence runs on an {@link AdvisoryLockStore} over the
 * fence's DataSource (the application's, or a pool of its own), a {@code @WriterFenced} call holds
 * a session advisory lock that {@code pg_locks} shows, the store closes after the fence on context
 * close, and bad settings or transaction pooling stop the start-up.
 */
class AdvisoryBackendTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class,
                  WriterFenceMetricsAutoConfiguration.class,
                  WriterFenceAutoConfiguration.class,
                  WriterFenceActuatorAutoConfiguration.class))
          .withBean(DataSource.class, DB::dataSource)
          .withPropertyValues("writer-fence.backend=advisory", "writer-fence.retry.max-attempts=1");

  /** A fenced call that holds its fence until told to return (latches read through the proxy). */
  public static class Holder {
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch leave = new CountDownLatch(1);

    public CountDownLatch entered() {
      return entered;
    }

    public CountDownLatch leave() {
      return leave;
    }

    @WriterFenced("{0}")
    public long hold(String fence) throws InterruptedException {
      entered.countDown();
      assertThat(leave.await(30, TimeUnit.SECONDS)).isTrue();
      return WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L);
    }

    @WriterFenced("{0}")
    public long once(String fence) {
      return WriterFence.current(fence).map(FenceLease::fencingToken).orElse(-1L);
    }
  }

  /** Fenced under another key scheme: a method naming its key, and one under the store's. */
  public static class KeyedWriter {
    @WriterFenced(
        value = "integrate-{0}-{1}",
        advisoryKey = "vibey.integrate:{0}:{1}",
        onBusy = OnBusy.SKIP)
    public Long integrate(String project, int cycle) {
      return keyLocks(AdvisoryKeys.keyOfText("vibey.integrate:" + project + ":" + cycle));
    }

    @WriterFenced("{0}")
    public Long schemed(String fence) {
      return keyLocks(AdvisoryKeys.keyOfText("vibey.fence:" + fence));
    }
  }

  @Test
  void theKeySchemePropertyAndAnAdvisoryKeyDecideTheLockThroughSpringAop() {
    runner
        .withBean(KeyedWriter.class)
        .withPropertyValues("writer-fence.advisory.key-scheme=vibey.fence:{name}")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(AdvisoryLockStore.class).keyScheme())
                  .isEqualTo("vibey.fence:{name}");
              KeyedWriter writer = context.getBean(KeyedWriter.class);
              String fence = FenceNames.random("schemed");
              assertThat(writer.schemed(fence)).isEqualTo(1L);
              String project = FenceNames.random("proj");
              assertThat(writer.integrate(project, 42)).isEqualTo(1L);
              // Another session holds the key: the method is skipped, it does not run.
              long key = AdvisoryKeys.keyOfText("vibey.integrate:" + project + ":42");
              try (Connection other = DB.dataSource().getConnection();
                  Statement st = other.createStatement()) {
                st.execute("SELECT pg_advisory_lock(" + key + ")");
                assertThat(writer.integrate(project, 42)).isNull();
                st.execute("SELECT pg_advisory_unlock(" + key + ")");
              }
            });
    runner
        .withPropertyValues("writer-fence.advisory.key-scheme=vibey.fence")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("advisory.key-scheme 'vibey.fence' is not allowed: text with {name}");
            });
  }

  @Test
  void aFencedCallHoldsTheAdvisoryLockAndASecondWriterIsBusyMeanwhile() {
    runner
        .withBean(Holder.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(AdvisoryLockStore.class);
              WriterFence fence = context.getBean(WriterFence.class);
              AdvisoryLockStore store = context.getBean(AdvisoryLockStore.class);
              assertThat(FencedCalls.store(fence)).isSameAs(store);
              assertThat(store.poolSize()).isEqualTo(AdvisoryLockStore.DEFAULT_POOL_SIZE);
              // The application's DataSource, as the lease row would use it.
              assertThat(context.getBean(WriterFenceDataSource.class).isDedicated()).isFalse();
              assertHoldsTheLockWhileTheCallRuns(context);
            });
  }

  @Test
  void aDedicatedPoolIsUsedAndGrownToThePoolSize() {
    runner
        .withBean(Holder.class)
        .withPropertyValues(
            "writer-fence.datasource.url=" + DB.jdbcUrl(),
            "writer-fence.datasource.username=postgres",
            // Smaller than the store needs: the starter grows it.
            "writer-fence.datasource.pool-size=4",
            "writer-fence.advisory.pool-size=6")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WriterFenceDataSource dataSource = context.getBean(WriterFenceDataSource.class);
              assertThat(dataSource.isDedicated()).isTrue();
              AdvisoryLockStore store = context.getBean(AdvisoryLockStore.class);
              assertThat(store.poolSize()).isEqualTo(6);
              assertThat(
                      ((com.zaxxer.hikari.HikariDataSource) dataSource.dataSource())
                          .getHikariConfigMXBean()
                          .getMaximumPoolSize())
                  .isEqualTo(7);
              assertHoldsTheLockWhileTheCallRuns(context);
              // Five fences held at once: more than the advisory store's default of 4 would give.
              WriterFence fence = context.getBean(WriterFence.class);
              List<FenceLease> held = new ArrayList<>();
              try {
                for (int i = 0; i < 5; i++) {
                  held.add(
                      fence
                          .tryAcquire(FenceRequest.builder(FenceNames.random("many")).build())
                          .orElseThrow());
                }
                for (FenceLease lease : held) {
                  assertThat(locksOn(lease.fenceName())).isEqualTo(1);
                }
              } finally {
                held.forEach(fence::release);
              }
            });
  }

  @Test
  void contextCloseReleasesAHeldLockThenClosesTheStore() throws Exception {
    String name = FenceNames.random("close");
    CompletableFuture<Long> call;
    AdvisoryLockStore store;
    Holder holder;
    try (var context =
        new org.springframework.context.annotation.AnnotationConfigApplicationContext()) {
      org.springframework.boot.test.util.TestPropertyValues.of(
              "writer-fence.backend=advisory",
              "writer-fence.datasource.url=" + DB.jdbcUrl(),
              "writer-fence.datasource.username=postgres")
          .applyTo(context);
      context.registerBean(DataSource.class, DB::dataSource);
      context.registerBean(Holder.class);
      context.register(
          AopAutoConfiguration.class,
          WriterFenceMetricsAutoConfiguration.class,
          WriterFenceAutoConfiguration.class);
      context.refresh();
      store = context.getBean(AdvisoryLockStore.class);
      holder = context.getBean(Holder.class);
      Holder fenced = holder;
      call =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return fenced.hold(name);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException(e);
                }
              });
      assertThat(holder.entered().await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(locksOn(name)).isEqualTo(1);
    }
    // The fence released the lock; the store was closed: it refuses to acquire.
    assertThat(locksOn(name)).isZero();
    assertThatThrownBy(() -> store.acquire(name, UUID.randomUUID(), null, Duration.ofSeconds(30)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("the advisory-lock store is closed");
    holder.leave().countDown();
    call.handle((token, failure) -> null).get(10, TimeUnit.SECONDS); // the call ends, lock or not
  }

  @Test
  void healthChecksTheAdvisoryFunctionToo() {
    String schema = "wf_adv_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    runner
        .withPropertyValues(
            "writer-fence.schema.name=" + schema, "writer-fence.schema.initialize=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WriterFenceHealthIndicator indicator =
                  context.getBean(WriterFenceHealthIndicator.class);
              var health = indicator.health(true);
              assertThat(health.getStatus()).isEqualTo(Status.UP);
              assertThat(health.getDetails()).containsEntry("backend", "advisory");
              DB.execute("DROP FUNCTION " + schema + ".next_advisory_fencing_token()");
              health = indicator.health(true);
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(String.valueOf(health.getDetails().get("error")))
                  .contains(schema + ".next_advisory_fencing_token() is missing");
            });
  }

  @Test
  void aBadPoolSizeStopsTheStartUpNamingTheProperty() {
    runner
        .withPropertyValues("writer-fence.advisory.pool-size=1")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains(
                      "writer-fence.advisory.pool-size: writer-fence: advisory-lock pool size 1")
                  .contains("at least 2");
            });
  }

  @Test
  void transactionPoolingStopsTheStartUpWithTheSelfChecksMessage() {
    PgBouncer.requireOrSkip();
    try (PgBouncer bouncer = PgBouncer.start(DB, "transaction", 1)) {
      runner
          .withPropertyValues(
              "writer-fence.datasource.url=" + bouncer.jdbcUrl(),
              "writer-fence.datasource.username=postgres")
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(messages(context.getStartupFailure()))
                    .contains("refuses to start")
                    .contains("transaction pooling");
              });
    }
  }

  @Test
  void theApplicationsOwnFenceMeansNoStore() {
    runner
        .withBean(
            WriterFence.class,
            () -> WriterFence.builder(EmbeddedDatabase.get().dataSource()).build())
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(WriterFence.class)
                    .doesNotHaveBean(AdvisoryLockStore.class));
  }

  /** A call holds the lock (one granted advisory lock on its key), a second writer is busy. */
  private static void assertHoldsTheLockWhileTheCallRuns(AssertableApplicationContext context)
      throws Exception {
    Holder holder = context.getBean(Holder.class);
    String name = FenceNames.random("advisory");
    assertThat(locksOn(name)).isZero();
    CompletableFuture<Long> call =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return holder.hold(name);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            });
    try {
      assertThat(holder.entered().await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(locksOn(name)).isEqualTo(1);
      // No lease row: the advisory backend writes none.
      assertThat(
              DB.queryValue(
                  Long.class, "SELECT count(*) FROM writer_fence.lease WHERE fence_name = ?", name))
          .isZero();
      // A second writer, on another thread of the same application: busy at once.
      assertThatThrownBy(() -> CompletableFuture.supplyAsync(() -> holder.once(name)).join())
          .hasCauseInstanceOf(WriterFenceBusyException.class);
      // And one of another process, on a store of its own: busy too.
      try (AdvisoryLockStore other = AdvisoryLockStore.create(DB.dataSource(), 2, "writer_fence")) {
        WriterFence otherFence = WriterFence.builder(other).withoutRenewal().build();
        assertThat(otherFence.tryAcquire(FenceRequest.builder(name).holderLabel("other").build()))
            .isEmpty();
        otherFence.close();
      }
    } finally {
      holder.leave().countDown();
    }
    long token = call.get(10, TimeUnit.SECONDS);
    assertThat(token).isPositive();
    assertThat(locksOn(name)).isZero();
    // Free again: the same writer takes it, with a greater fencing token.
    assertThat(holder.once(name)).isGreaterThan(token);
  }

  /** Granted session advisory locks on the fence's 64-bit key, over every session. */
  static long locksOn(String fenceName) {
    return keyLocks(AdvisoryKeys.keyOf(fenceName));
  }

  /** Granted session advisory locks on a 64-bit key, over every session. */
  static long keyLocks(long key) {
    return DB.queryValue(
        Long.class,
        "SELECT count(*) FROM pg_catalog.pg_locks WHERE locktype = 'advisory' AND granted"
            + " AND objsubid = 1 AND classid::bigint = ? AND objid::bigint = ?",
        key >>> 32,
        key & 0xFFFFFFFFL);
  }

  private static String messages(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }
}
