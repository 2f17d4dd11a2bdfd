package dev.writerfence.shedlock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A Spring application's {@code @SchedulerLock} job, moved to the lease row by its one {@code
 * LockProvider} bean: it runs under a lease it can read, and does not run while another holder has
 * the fence name.
 */
class SchedulerLockOnSpringTest {
  // A name of this test alone: the database is shared by the tests of this JVM.
  static final String JOB = "shedlock-spring-nightly-report";

  /** The job; a scheduler would call {@code run()} on its cron. */
  static class NightlyJob {
    private final List<Long> fencingTokens = new ArrayList<>();

    @SchedulerLock(name = JOB)
    public void run() {
      fencingTokens.add(WriterFenceLockProvider.current(JOB).orElseThrow().fencingToken());
    }

    /** Through a method: the bean is a proxy, whose own fields are not the job's. */
    public List<Long> fencingTokens() {
      return fencingTokens;
    }
  }

  @Configuration
  @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
  static class App {
    @Bean
    LockProvider lockProvider() { // the one bean that changes
      return new WriterFenceLockProvider(EmbeddedDatabase.get().dataSource());
    }

    @Bean
    NightlyJob nightlyJob() {
      return new NightlyJob();
    }
  }

  @Test
  void theJobRunsUnderALeaseAndIsSkippedWhileAnotherHolderHasIt() throws Exception {
    DataSource db = EmbeddedDatabase.get().dataSource();
    ContractCalls contract = new ContractCalls(db, FenceSchema.DEFAULT_SCHEMA);
    try (AnnotationConfigApplicationContext context =
        new AnnotationConfigApplicationContext(App.class)) {
      NightlyJob job = context.getBean(NightlyJob.class);

      job.run();
      assertThat(job.fencingTokens()).hasSize(1);
      assertThat(contract.state(JOB)).isEqualTo("free");

      UUID otherHolder = UUID.randomUUID();
      long othersToken = contract.acquire(JOB, otherHolder, "another-instance", 60);
      job.run();
      assertThat(job.fencingTokens()).as("skipped while held").hasSize(1);
      assertThat(contract.release(JOB, otherHolder)).isTrue();

      job.run();
      assertThat(job.fencingTokens()).hasSize(2);
      assertThat(job.fencingTokens().get(1)).isGreaterThan(othersToken);
    }
  }
}
