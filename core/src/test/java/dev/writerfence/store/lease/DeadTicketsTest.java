package dev.writerfence.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.QueuedWaiter;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * Tickets of killed waiters never stay as rows (contract version 5, ADR 68): the next release,
 * grant or enqueue of their fence deletes them, and so does the housekeeping of a process waiting
 * on another fence. The waiters are writer processes of their own, killed with SIGKILL while they
 * wait; their tickets lapse after 1 s by the database clock.
 */
class DeadTicketsTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration EXPECT = Duration.ofSeconds(60);
  private static final Duration HOLD = Duration.ofMinutes(10);
  private static final int KILLED = 2;

  private final PgLeaseStore store =
      new PgLeaseStore(DB.dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(10));
  private String name;

  @BeforeEach
  void freshFenceName(TestInfo test) {
    name = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("dead"));
  }

  @Test
  void theNextReleaseDeletesTheTicketsOfKilledWaiters() {
    List<ForkedJvm> waiters = started();
    StoreLease holder = store.acquire(name, UUID.randomUUID(), "holder", HOLD).orElseThrow();
    killedWhileWaiting(waiters);

    assertThat(holder.release()).isTrue();

    assertThat(store.queue(name)).isEmpty();
  }

  @Test
  void theNextGrantDeletesTheTicketsOfKilledWaiters() {
    List<ForkedJvm> waiters = started();
    StoreLease holder =
        store.acquire(name, UUID.randomUUID(), "holder", Duration.ofSeconds(10)).orElseThrow();
    killedWhileWaiting(waiters);
    await().atMost(EXPECT).until(() -> store.status(name).map(s -> !s.isHeld()).orElse(false));

    StoreLease next = store.acquire(name, UUID.randomUUID(), "next", TTL).orElseThrow();

    assertThat(next.fencingToken()).isGreaterThan(holder.fencingToken());
    assertThat(store.queue(name)).isEmpty();
    assertThat(next.release()).isTrue();
  }

  @Test
  void theNextEnqueueDeletesTheTicketsOfKilledWaiters() {
    List<ForkedJvm> waiters = started();
    StoreLease holder = store.acquire(name, UUID.randomUUID(), "holder", HOLD).orElseThrow();
    killedWhileWaiting(waiters);

    Ticket live = new Ticket(name, UUID.randomUUID(), "live", 0, Duration.ofSeconds(30));
    assertThat(store.enqueue(live).place()).isEqualTo(1);

    assertThat(store.queue(name)).extracting(QueuedWaiter::holderLabel).containsExactly("live");
    assertThat(store.leaveQueue(name, live.waiterToken())).isTrue();
    assertThat(holder.release()).isTrue();
  }

  @Test
  void theHousekeepingOfAProcessWaitingOnAnotherFenceDeletesThem() {
    List<ForkedJvm> waiters = started();
    StoreLease holder = store.acquire(name, UUID.randomUUID(), "holder", HOLD).orElseThrow();
    killedWhileWaiting(waiters);

    // A process of its own: its first poll with a head lapse is when its housekeeping is due.
    PgLeaseStore elsewhere =
        new PgLeaseStore(DB.dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(10));
    Ticket other =
        new Ticket(name + "-other", UUID.randomUUID(), "other", 0, Duration.ofSeconds(5));
    StoreLease otherLease =
        elsewhere
            .acquireInTurn(other, UUID.randomUUID(), TTL, Duration.ofMillis(800))
            .lease()
            .orElseThrow();

    assertThat(store.queue(name)).as("nothing was granted, queued or released on it").isEmpty();
    assertThat(store.status(name).orElseThrow().isHeld()).isTrue();
    assertThat(otherLease.release()).isTrue();
    assertThat(holder.release()).isTrue();
  }

  /** Writer processes of their own, ready to wait on the fence, with tickets lapsing after 1 s. */
  private List<ForkedJvm> started() {
    List<ForkedJvm> waiters = new ArrayList<>();
    for (int i = 0; i < KILLED; i++) {
      ForkedJvm jvm =
          ForkedJvm.start(
              QueuedWriterProcess.class,
              DB.jdbcUrl(),
              FenceSchema.DEFAULT_SCHEMA,
              name,
              "killed-" + i,
              "0",
              "1");
      jvm.awaitLine("ready", EXPECT);
      waiters.add(jvm);
    }
    return waiters;
  }

  /**
   * They wait behind the holder, all polling, then are killed with SIGKILL; their tickets lapse.
   */
  private void killedWhileWaiting(List<ForkedJvm> waiters) {
    for (ForkedJvm jvm : waiters) {
      jvm.send("wait");
      assertThat(jvm.awaitLine("queued ", EXPECT)).isNotEqualTo("queued 0");
    }
    for (ForkedJvm jvm : waiters) {
      try (jvm) {
        jvm.process().destroyForcibly();
        jvm.awaitExit(EXPECT);
      }
    }
    await()
        .atMost(EXPECT)
        .until(
            () -> {
              List<QueuedWaiter> rows = store.queue(name);
              return rows.size() == KILLED && rows.stream().noneMatch(QueuedWaiter::isWaiting);
            });
  }
}
