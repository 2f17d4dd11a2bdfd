package dev.writerfence.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code pg_terminate_backend} of the fence's server sessions while leases are held. The lease
 * backend keeps one holder at a time (every section recorded and checked afterwards); the advisory
 * backend's lock ends with its session, and the fence marks the lease lost. The store-level half of
 * the advisory case is {@code
 * AdvisoryLockStoreTest.aDeadPinnedConnectionIsLostAndTheServerFreesTheLock} in core; here the
 * whole fence (renewal, listener, {@code checkValid}) is checked.
 */
class TerminateBackendTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final String APPLICATION = "writer-fence-fault-writer"; // FaultWriter.pool's

  /**
   * Short, so that a lease orphaned by a killed release (the row stays held, fail closed) is taken
   * over within the run.
   */
  private static final Duration TTL = Duration.ofSeconds(2);

  private static final int THREADS = 6;
  private static final int FAULTS = 5;

  @Test
  void leaseBackendNeverLetsTwoHoldersInWhileItsConnectionsAreKilled() throws Exception {
    String name = FenceNames.random("terminate-lease");
    CriticalSections log =
        new CriticalSections(DB.dataSource(), CriticalSections.freshTable("terminate")).create();
    ContractCalls sql = new ContractCalls(DB.dataSource(), "writer_fence");
    List<Instant> faults = new ArrayList<>();
    int sessionsEnded = 0;
    try (HikariDataSource pool = FaultWriter.pool(DB.jdbcUrl(), THREADS + 1);
        ForkedJvm process =
            FaultWriter.fork(
                FaultWriter.target(DB.jdbcUrl(), name, log, DB),
                4,
                (int) TTL.toSeconds(),
                3,
                "process")) {
      WriterFence fence = WriterFence.builder(pool).defaultTtl(TTL).build();
      process.send("go");
      WriterLoop here = new WriterLoop(fence, name, TTL, log, "test-jvm", THREADS, 3);
      for (int i = 0; i < FAULTS; i++) {
        // Each fault strikes while the lease is held, after writers got in since the last one.
        Instant since = faults.isEmpty() ? log.now() : faults.get(faults.size() - 1);
        await("writers in again before fault " + (i + 1))
            .atMost(TTL.plusSeconds(5))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> log.sectionsEnteredAfter(since) > 0 && "held".equals(sql.state(name)));
        Sql.Terminated t = Sql.terminate(DB.dataSource(), APPLICATION);
        assertThat(t.sessions()).as("sessions ended by fault %d", i + 1).isPositive();
        faults.add(t.at());
        sessionsEnded += t.sessions();
      }
      Instant lastFault = faults.get(faults.size() - 1);
      await("a section after the last fault")
          .atMost(TTL.plusSeconds(5))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> log.sectionsEnteredAfter(lastFault) > 0);
      process.send("stop");
      WriterLoop.Outcome outcome = here.stop();
      fence.close();
      String[] done = process.awaitLine("done ", Duration.ofSeconds(60)).split(" ");

      List<Section> recorded = log.load(Map.of());
      Duration recovery = Recovery.longest(recorded, faults);
      System.out.printf(
          "pg_terminate_backend, lease backend: %d faults ended %d sessions; %d sections"
              + " (%d in this JVM, %s in the writer process), %d + %s unavailable calls,"
              + " max recovery %d ms, %d violations%n",
          faults.size(),
          sessionsEnded,
          recorded.size(),
          outcome.sections(),
          done[1],
          outcome.unavailable(),
          done[3],
          recovery.toMillis(),
          SectionChecker.check(recorded).violations().size());

      assertThat(outcome.failures()).isEmpty();
      assertThat(done[4]).as("failures in the writer process").isEqualTo("0");
      assertThat(recorded).extracting(Section::writer).anyMatch(w -> w.startsWith("process@"));
      assertThat(SectionChecker.check(recorded).violations()).isEmpty();
    }
  }

  @Test
  void advisoryBackendMarksItsLeaseLostWhenItsSessionIsKilled() throws Exception {
    String name = FenceNames.random("terminate-advisory");
    Duration ttl = Duration.ofSeconds(3);
    LossWatch watch = new LossWatch();
    try (HikariDataSource pool = FaultWriter.pool(DB.jdbcUrl(), 3);
        AdvisoryLockStore store = AdvisoryLockStore.create(pool, 3, "writer_fence")) {
      WriterFence fence =
          WriterFence.builder(store)
              .defaultTtl(ttl)
              .renewInterval(Duration.ofMillis(200))
              .listener(watch)
              .build();
      FenceLease lease =
          fence
              .tryAcquire(
                  FenceRequest.builder(name).holderLabel("advisory-holder").ttl(ttl).build())
              .orElseThrow();
      int pid = Sql.advisoryHolderPid(DB.dataSource(), name);

      long killed = System.nanoTime();
      assertThat(DB.queryValue(Boolean.class, "SELECT pg_terminate_backend(?, 5000)", pid))
          .isTrue();
      assertThat(watch.await(10)).as("the loss is reported").isTrue();
      long lostAfter = TimeUnit.NANOSECONDS.toMillis(watch.lostAtNanos() - killed);
      System.out.printf(
          "pg_terminate_backend, advisory backend: lease lost %d ms after its session was"
              + " killed (TTL %d ms, renewal every 200 ms): %s%n",
          lostAfter, ttl.toMillis(), watch.reason());

      assertThat(lostAfter).as("lost before the TTL ran out").isLessThan(ttl.toMillis());
      assertThat(lease.isValid()).isFalse();
      FenceLostException lost = catchThrowableOfType(FenceLostException.class, lease::checkValid);
      assertThat(lost.fencingToken()).isEqualTo(lease.fencingToken());
      FenceLease next =
          fence
              .tryAcquire(FenceRequest.builder(name).holderLabel("next").ttl(ttl).build())
              .orElseThrow();
      assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
      assertThat(fence.release(next)).isTrue();
      fence.close();
    }
  }
}
