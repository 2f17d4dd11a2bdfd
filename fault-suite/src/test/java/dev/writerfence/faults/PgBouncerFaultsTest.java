package dev.writerfence.faults;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.PgBouncerExtension;
import dev.writerfence.testing.SectionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The lease backend behind PgBouncer in transaction pooling mode (Debian's pgbouncer 1.18, started
 * by the test in front of the embedded PostgreSQL): exact mutual exclusion of many threads in
 * several JVMs, and a fence reached without {@code prepareThreshold=0} names that fix. The advisory
 * half of C17 is {@code AdvisoryBehindPgBouncerTest} in core. Skipped without pgbouncer, failed
 * without it when {@code CI=true}.
 */
class PgBouncerFaultsTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration HAMMER = Duration.ofSeconds(4);
  private static final int PROCESSES = 2;
  private static final int THREADS = 4;

  /** Fewer server connections than clients: client transactions take turns on shared sessions. */
  @RegisterExtension
  static final PgBouncerExtension BOUNCER = new PgBouncerExtension("transaction", 3);

  @Test
  void C17_leaseBackendKeepsExactMutualExclusionThroughTransactionPooling() throws Exception {
    String name = FenceNames.random("C17-lease");
    CriticalSections log =
        new CriticalSections(DB.dataSource(), CriticalSections.freshTable("c17")).create();
    FaultWriter.Target target = FaultWriter.target(BOUNCER.get().jdbcUrl(), name, log, DB);
    List<ForkedJvm> processes = new ArrayList<>();
    try (HikariDataSource pool = FaultWriter.pool(BOUNCER.get().jdbcUrl(), THREADS + 1)) {
      for (int i = 0; i < PROCESSES; i++) {
        processes.add(FaultWriter.fork(target, THREADS, 30, 2, "process-" + i));
      }
      WriterFence fence = WriterFence.builder(pool).defaultTtl(Duration.ofSeconds(30)).build();
      processes.forEach(p -> p.send("go"));
      WriterLoop here =
          new WriterLoop(fence, name, Duration.ofSeconds(30), log, "test-jvm", THREADS, 2);
      Thread.sleep(
          HAMMER.toMillis()); // the writers work for this long; the record is checked after
      processes.forEach(p -> p.send("stop"));
      WriterLoop.Outcome outcome = here.stop();
      fence.close();

      assertThat(outcome.failures()).isEmpty();
      int sections = outcome.sections();
      int busy = outcome.busy();
      int unavailable = outcome.unavailable();
      for (ForkedJvm process : processes) {
        String[] done = process.awaitLine("done ", Duration.ofSeconds(60)).split(" ");
        assertThat(done[4]).as("failures in %s", process).isEqualTo("0");
        sections += Integer.parseInt(done[1]);
        busy += Integer.parseInt(done[2]);
        unavailable += Integer.parseInt(done[3]);
      }
      var recorded = log.load(Map.of());
      System.out.printf(
          "C17 lease backend through PgBouncer (transaction mode, 3 server connections):"
              + " %d threads in %d JVMs, %d sections in %d ms, %d calls busy after retries,"
              + " %d unavailable, %d violations%n",
          THREADS * (PROCESSES + 1),
          PROCESSES + 1,
          recorded.size(),
          HAMMER.toMillis(),
          busy,
          unavailable,
          SectionChecker.check(recorded).violations().size());

      assertThat(recorded).hasSize(sections);
      assertThat(unavailable).as("no call failed through the pooler").isZero();
      assertThat(recorded)
          .extracting(s -> s.writer().replaceAll("[@/].*", ""))
          .as("every JVM got the lease")
          .contains("test-jvm", "process-0", "process-1");
      assertThat(SectionChecker.check(recorded).violations()).isEmpty();
    } finally {
      processes.forEach(ForkedJvm::close);
    }
  }

  /**
   * Without {@code prepareThreshold=0} pgjdbc prepares statements on the server after a few uses of
   * one statement; through PgBouncer 1.18 in transaction mode they land on a server session another
   * client also prepares on, or on one that never saw them. The fence's error names the fix.
   */
  @Test
  void withoutPrepareThresholdZeroTheFenceErrorNamesTheFix() throws Exception {
    String name = FenceNames.random("prepare-threshold");
    String url = BOUNCER.get().jdbcUrl().replace("?prepareThreshold=0", "");
    assertThat(url).doesNotContain("prepareThreshold");
    List<WriterFenceUnavailableException> errors = new CopyOnWriteArrayList<>();
    AtomicInteger cycles = new AtomicInteger();
    try (HikariDataSource pool = FaultWriter.pool(url, THREADS)) {
      WriterFence fence = WriterFence.builder(pool).withoutRenewal().build();
      // Threads of one pool, as an application has them: their client connections take turns on
      // the server sessions, and after 5 uses pgjdbc prepares a statement on the server as S_1.
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        String fenceName = name + "/" + t;
        threads.add(
            new Thread(
                () -> {
                  while (errors.isEmpty() && cycles.incrementAndGet() <= 2000) {
                    try {
                      fence
                          .tryAcquire(
                              FenceRequest.builder(fenceName)
                                  .holderLabel("no-threshold")
                                  .ttl(Duration.ofSeconds(5))
                                  .build())
                          .ifPresent(fence::release);
                    } catch (WriterFenceUnavailableException e) {
                      errors.add(e);
                    }
                  }
                }));
      }
      threads.forEach(Thread::start);
      for (Thread thread : threads) {
        thread.join();
      }
      fence.close();
    }
    System.out.printf(
        "without prepareThreshold=0 through PgBouncer: first error after %d cycles: %s%n",
        cycles.get(), errors.isEmpty() ? "(none)" : errors.get(0).getMessage());
    assertThat(errors).as("an error within 2000 cycles").isNotEmpty();
    WriterFenceUnavailableException error = errors.get(0);
    assertThat(error.sqlState())
        .hasValueSatisfying(s -> assertThat(s).isIn("42P05", "26000", "08P01"));
    assertThat(error.getMessage())
        .contains("prepareThreshold=0")
        .contains("transaction mode")
        .contains("PgBouncer");
  }
}
