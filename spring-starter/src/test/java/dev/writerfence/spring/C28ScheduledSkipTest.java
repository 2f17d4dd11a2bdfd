package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Case C28: a {@code @Scheduled} job fenced with {@code onBusy = SKIP} on every instance, while
 * another instance holds the fence: each run on this instance is skipped, silently, until the fence
 * is free.
 */
class C28ScheduledSkipTest {
  /** The job's fence, spelled out as the annotation needs it; no other test uses it. */
  static final String FENCE = "c28-scheduled-nightly-walk";

  /** A job that another instance runs too: whoever holds the fence does the work. */
  public static class NightlyJob {
    final AtomicInteger runs = new AtomicInteger();

    @Scheduled(fixedDelay = 20)
    @WriterFenced(value = FENCE, holder = "c28-job", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public void walk() {
      runs.incrementAndGet();
    }

    /** Read through the proxy: its own fields are not the job's. */
    public int runCount() {
      return runs.get();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableScheduling
  static class App {
    final List<Throwable> schedulerErrors = new CopyOnWriteArrayList<>();
    final AtomicInteger busyAnswers = new AtomicInteger();

    @Bean
    PGSimpleDataSource dataSource() {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setURL(EmbeddedDatabase.get().jdbcUrl());
      ds.setUser("postgres");
      return ds;
    }

    @Bean
    NightlyJob nightlyJob() {
      return new NightlyJob();
    }

    /** Whatever a scheduled run throws ends here instead of in the log. */
    @Bean
    ThreadPoolTaskScheduler taskScheduler() {
      ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
      scheduler.setErrorHandler(schedulerErrors::add);
      return scheduler;
    }

    @Bean
    FenceListener busyCounter() {
      return new FenceListener() {
        @Override
        public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
          busyAnswers.incrementAndGet();
        }
      };
    }
  }

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(AopAutoConfiguration.class, WriterFenceAutoConfiguration.class))
          .withUserConfiguration(App.class);

  @Test
  void C28_aScheduledJobWithOnBusySkipDoesNotRunWhileAnotherInstanceHoldsAndThrowsNothing()
      throws Exception {
    ContractCalls otherInstance =
        new ContractCalls(EmbeddedDatabase.get().dataSource(), "writer_fence");
    UUID token = UUID.randomUUID();
    assertThat(otherInstance.acquire(FENCE, token, "other-instance", 60)).isNotNull();
    try {
      runner.run(
          context -> {
            assertThat(context).hasNotFailed();
            App app = context.getBean(App.class);
            NightlyJob job = context.getBean(NightlyJob.class);
            // The scheduler called the job several times; the fence answered busy each time.
            await().atMost(Duration.ofSeconds(30)).until(() -> app.busyAnswers.get() >= 5);
            assertThat(job.runCount()).as("runs while the other instance holds").isZero();
            assertThat(app.schedulerErrors).as("what the scheduled runs threw").isEmpty();
            assertThat(otherInstance.state(FENCE)).isEqualTo("held");

            // Once the other instance is done, the next run does the work, under the fence.
            assertThat(otherInstance.release(FENCE, token)).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> job.runCount() >= 1);
            assertThat(app.schedulerErrors).isEmpty();
          });
    } finally {
      otherInstance.release(FENCE, token); // false when the test released it already
    }
  }
}
