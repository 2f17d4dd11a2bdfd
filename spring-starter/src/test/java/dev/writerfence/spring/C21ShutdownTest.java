package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceMetricsAutoConfiguration;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.SwitchableDataSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Case C21: the application context closes (as on SIGTERM, through Spring Boot's shutdown hook)
 * while a fenced job runs.
 */
@ExtendWith(OutputCaptureExtension.class)
class C21ShutdownTest {
  static final List<String> ORDER = new CopyOnWriteArrayList<>();

  /** A job that holds its fence until told to finish. */
  public static class Job {
    final CountDownLatch running = new CountDownLatch(1);
    final CountDownLatch finish = new CountDownLatch(1);

    @WriterFenced(value = "{0}", holder = "c21-job")
    public boolean run(String fence) throws InterruptedException {
      running.countDown();
      assertThat(finish.await(30, TimeUnit.SECONDS)).isTrue();
      return WriterFence.current(fence).isPresent();
    }

    public boolean awaitRunning() throws InterruptedException {
      return running.await(10, TimeUnit.SECONDS);
    }

    public void finish() {
      finish.countDown();
    }
  }

  /** The application: a pooled DataSource that records when it closes, the job, an event log. */
  @Configuration(proxyBeanMethods = false)
  static class App {
    @Bean
    HikariDataSource dataSource() {
      HikariDataSource ds =
          new HikariDataSource() {
            @Override
            public void close() {
              ORDER.add("datasource-closed");
              super.close();
            }
          };
      ds.setJdbcUrl(EmbeddedDatabase.get().jdbcUrl());
      ds.setUsername("postgres");
      ds.setMaximumPoolSize(3);
      return ds;
    }

    @Bean
    Job job() {
      return new Job();
    }

    @Bean
    FenceListener releaseRecorder() {
      return new FenceListener() {
        @Override
        public void released(FenceLease lease, boolean freed) {
          ORDER.add("released:" + lease.fenceName() + ":" + freed);
        }
      };
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  AopAutoConfiguration.class,
                  WriterFenceMetricsAutoConfiguration.class,
                  WriterFenceAutoConfiguration.class,
                  WriterFenceActuatorAutoConfiguration.class))
          .withUserConfiguration(App.class);

  @Test
  void C21_leasesHeldAtContextCloseAreReleasedBeforeTheDataSourceCloses(CapturedOutput output)
      throws Exception {
    ORDER.clear();
    String name = FenceNames.random("c21");
    CompletableFuture<Boolean> stillHeldAtTheEnd = new CompletableFuture<>();
    Job[] job = new Job[1];
    runner.run(
        context -> {
          job[0] = context.getBean(Job.class);
          CompletableFuture.runAsync(
              () -> {
                try {
                  stillHeldAtTheEnd.complete(job[0].run(name));
                } catch (Throwable t) {
                  stillHeldAtTheEnd.completeExceptionally(t);
                }
              });
          assertThat(job[0].awaitRunning()).isTrue();
          assertThat(status(name)).isEqualTo("held/c21-job@" + HolderLabel.instance());
          context.close(); // what SIGTERM does through Spring Boot's shutdown hook
        });

    assertThat(ORDER).containsExactly("released:" + name + ":true", "datasource-closed");
    assertThat(status(name)).isEqualTo("free/c21-job@" + HolderLabel.instance());
    // Another writer gets the fence at once.
    WriterFence next = WriterFence.builder(EmbeddedDatabase.get().dataSource()).build();
    FenceLease lease =
        next.tryAcquire(
                FenceRequest.builder(name).holderLabel("next").ttl(Duration.ofSeconds(5)).build())
            .orElseThrow();
    next.release(lease);

    // The job ends after the shutdown: its lease was released for it, nothing else is tried.
    job[0].finish();
    assertThat(stillHeldAtTheEnd.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(ORDER).hasSize(2);
    assertThat(output.getAll()).doesNotContain("has been closed").doesNotContain("failed");
  }

  @Test
  void C21_aFenceBeanOfTheApplicationsOwnIsClosedBeforeTheDataSourceCloses(CapturedOutput output)
      throws Exception {
    ORDER.clear();
    String name = FenceNames.random("c21-own");
    HikariDataSource pool = new App().dataSource();
    // Registered before the DataSource and built on the pool object: Spring knows of no link
    // between the two beans, and would call the fence's close() (AutoCloseable) in any order.
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(AopAutoConfiguration.class, WriterFenceAutoConfiguration.class))
        .withBean(
            "ownFence",
            WriterFence.class,
            () -> WriterFence.builder(pool).listener(new App().releaseRecorder()).build())
        .withBean("dataSource", DataSource.class, () -> pool)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBeanFactory().getDependentBeans("dataSource"))
                  .contains("writerFenceShutdown");
              WriterFence fence = context.getBean(WriterFence.class);
              fence
                  .tryAcquire(
                      FenceRequest.builder(name)
                          .holderLabel("c21-own")
                          .ttl(Duration.ofSeconds(30))
                          .build())
                  .orElseThrow();
              assertThat(status(name)).isEqualTo("held/c21-own@" + HolderLabel.instance());
              context.close();
              assertThat(fence.isClosed()).isTrue();
            });

    assertThat(ORDER).containsExactly("released:" + name + ":true", "datasource-closed");
    assertThat(status(name)).isEqualTo("free/c21-own@" + HolderLabel.instance());
    assertThat(output.getAll()).doesNotContain("has been closed").doesNotContain("failed");
  }

  @Test
  void C21_aReleaseThatFailsAtShutdownIsOneWarningPerLeaseAndTheTtlFreesIt(CapturedOutput output) {
    String first = FenceNames.random("c21-a");
    String second = FenceNames.random("c21-b");
    SwitchableDataSource database = new SwitchableDataSource(EmbeddedDatabase.get().dataSource());
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(AopAutoConfiguration.class, WriterFenceAutoConfiguration.class))
        .withBean(DataSource.class, () -> database)
        .run(
            context -> {
              WriterFence fence = context.getBean(WriterFence.class);
              fence
                  .tryAcquire(
                      FenceRequest.builder(first)
                          .holderLabel("c21")
                          .ttl(Duration.ofSeconds(2))
                          .build())
                  .orElseThrow();
              fence
                  .tryAcquire(
                      FenceRequest.builder(second)
                          .holderLabel("c21")
                          .ttl(Duration.ofSeconds(2))
                          .build())
                  .orElseThrow();
              database.cutOff(); // the database is gone when the application stops
              context.close();
            });
    // One warning for each lease, naming its fence and that its expiry frees it.
    for (String name : List.of(first, second)) {
      assertThat(output.getAll())
          .containsOnlyOnce("release of fence '" + name + "'")
          .contains("failed; the lease frees itself at its expiry");
    }
    // Left to the TTL: held now, expired (free to take over) once it runs out.
    assertThat(status(first)).isEqualTo("held/c21@" + HolderLabel.instance());
    Awaitility.await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> status(first).startsWith("expired") && status(second).startsWith("expired"));
  }

  @Test
  void C21_theShutdownBeanIsCreatedUnderLazyInitializationToo() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(AopAutoConfiguration.class, WriterFenceAutoConfiguration.class))
        .withBean(DataSource.class, () -> EmbeddedDatabase.get().dataSource())
        .withBean(LazyInitializationBeanFactoryPostProcessor.class)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBeanFactory().containsSingleton("writerFenceShutdown"))
                  .isTrue();
              assertThat(context.getBeanFactory().getDependentBeans("dataSource"))
                  .contains("writerFenceShutdown");
            });
  }

  private static String status(String name) {
    return EmbeddedDatabase.get()
        .queryValue(
            String.class,
            "SELECT state || '/' || holder_label FROM writer_fence.lease_status WHERE fence_name = ?",
            name);
  }
}
