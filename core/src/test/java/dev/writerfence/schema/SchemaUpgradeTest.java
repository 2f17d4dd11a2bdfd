package dev.writerfence.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FencingTokens;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Version 2 of the contract installed over version 1: every lease row and fencing token stays, a
 * lease held across the upgrade is still its holder's, and writers that keep calling V1's functions
 * during and after the upgrade never share the lease with a V2 writer. Version 5 installed over
 * version 4: tickets stay, and waiters calling version 4's functions are served as before.
 */
class SchemaUpgradeTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  private final String schema = "wf_upgrade_" + Math.abs(ThreadLocalRandom.current().nextInt());
  private final FenceSchema installer = FenceSchema.defaults().schema(schema);
  private final ContractCalls calls = new ContractCalls(DB.dataSource(), schema);

  @Test
  void upgradingAnInstalledV1KeepsEveryLeaseAndTokenWhileLeasesAreHeldAndUsed() throws Exception {
    installVersion1();
    assertThat(version()).isEqualTo(1);
    UUID holder = UUID.randomUUID();
    assertThat(calls.acquire("held", holder, "v1-holder", 60)).isEqualTo(1L);
    for (int i = 0; i < 3; i++) {
      UUID cycle = UUID.randomUUID();
      calls.acquire("released", cycle, "v1-cycle", 60);
      calls.release("released", cycle);
    }
    assertThat(calls.fencingToken("released")).isEqualTo(3L);

    // A V1 writer keeps taking and freeing a third fence while the upgrade runs.
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService writer = Executors.newSingleThreadExecutor();
    Future<List<Long>> tokens =
        writer.submit(
            () -> {
              List<Long> taken = new ArrayList<>();
              while (!stop.get()) {
                UUID token = UUID.randomUUID();
                try {
                  Long t = calls.acquire("busy", token, "v1-writer", 60);
                  if (t != null) {
                    taken.add(t);
                    assertThat(calls.release("busy", token)).isTrue();
                  }
                } catch (SQLException e) {
                  // The upgrade holds the table's lock for its moment: a lock timeout is a
                  // retryable refusal, never a grant.
                  assertThat(e.getSQLState()).isEqualTo("55P03");
                }
              }
              return taken;
            });
    try {
      Thread.sleep(200);
      installer.install(DB.dataSource());
      Thread.sleep(200);
    } finally {
      stop.set(true);
      writer.shutdown();
    }

    assertThat(version()).isEqualTo(FenceSchema.VERSION).isEqualTo(6);
    assertThat(calls.state("held")).as("held across the upgrade").isEqualTo("held");
    assertThat(calls.fencingToken("held")).isEqualTo(1L);
    assertThat(calls.acquire("held", UUID.randomUUID(), "other", 60)).as("still busy").isNull();
    assertThat(calls.renew("held", holder, 60)).as("its holder still renews it").isTrue();
    assertThat(calls.release("held", holder)).isTrue();
    assertThat(calls.acquire("released", UUID.randomUUID(), "v2", 60))
        .as("the next grant jumps to its epoch's first token, above every V1 token")
        .isEqualTo(FencingTokens.first(1));
    List<Long> taken = tokens.get();
    assertThat(taken).as("the V1 writer worked through the upgrade").isNotEmpty();
    assertThat(taken).isSorted().doesNotHaveDuplicates();
  }

  @Test
  void aWriterOnV1FunctionsNeverSharesTheLeaseWithAQueuedWriter() throws Exception {
    installer.install(DB.dataSource());
    UUID waiter = UUID.randomUUID();
    UUID queued = UUID.randomUUID();
    assertThat(calls.enqueue("mixed", waiter, "v2-waiter", 0, 30).place()).isEqualTo(1);

    assertThat(calls.acquire("mixed", UUID.randomUUID(), "v1-writer", 60))
        .as("a writer without a ticket waits while a ticket is queued")
        .isNull();
    assertThat(calls.acquireTurn("mixed", queued, "v2-waiter", 60, waiter, 0, 30).acquired())
        .isTrue();

    // An old installer runs V1 alone over V2: V1's function bodies come back, the queue's stay.
    installVersion1();
    assertThat(calls.acquire("mixed", UUID.randomUUID(), "v1-writer", 60))
        .as("the lease row still decides")
        .isNull();
    assertThat(calls.release("mixed", queued)).isTrue();
    UUID v1 = UUID.randomUUID();
    assertThat(calls.acquire("mixed", v1, "v1-writer", 60))
        .as("V1 bodies ignore the queue; their counter goes on from the V3 token")
        .isEqualTo(FencingTokens.first(1) + 1);
    ContractCalls.Turn refused =
        calls.acquireTurn("mixed", UUID.randomUUID(), "v2-waiter", 60, UUID.randomUUID(), 0, 30);
    assertThat(refused.acquired()).as("busy while the V1 writer holds").isFalse();
    assertThat(calls.release("mixed", v1)).isTrue();

    installer.install(DB.dataSource());
    assertThat(version()).isEqualTo(FenceSchema.VERSION);
  }

  @Test
  void upgradingAnInstalledV4KeepsItsTicketsAndServesItsWaitersAsVersion4Did() throws Exception {
    for (String resource : FenceSchema.MIGRATION_RESOURCES.subList(0, 4)) {
      DB.execute(installer.fill(FenceSchema.migrationTemplate(resource)));
    }
    assertThat(version()).isEqualTo(4);
    UUID holder = UUID.randomUUID();
    assertThat(calls.acquire("queued", holder, "v4-holder", 60)).isNotNull();
    UUID v4Waiter = UUID.randomUUID();
    assertThat(calls.enqueue("queued", v4Waiter, "v4-waiter", 0, 30).place()).isEqualTo(1);

    installer.install(DB.dataSource());

    assertThat(version()).isEqualTo(FenceSchema.VERSION).isEqualTo(6);
    assertThat(calls.state("queued")).as("held across the upgrade").isEqualTo("held");
    assertThat(calls.queuedLabels("queued")).containsExactly("v4-waiter");
    assertThat(calls.release("queued", holder)).isTrue();
    assertThat(
            DB.queryValue(
                Boolean.class,
                "SELECT l.reserved_until = w.lapses_at FROM "
                    + schema
                    + ".lease l JOIN "
                    + schema
                    + ".waiter w ON w.fence_name = l.fence_name AND w.waiter_token ="
                    + " l.reserved_for WHERE l.fence_name = 'queued'"))
        .as("a ticket of a version 4 call has no head lapse: kept for it until it lapses")
        .isTrue();
    Thread.sleep(1_000); // more than the head lapse of the waiter behind it
    ContractCalls.Turn behind =
        calls.acquireTurn("queued", UUID.randomUUID(), "v5", 60_000L, UUID.randomUUID(), 0, 30, 1);
    assertThat(behind.acquired()).as("the version 4 head is not passed over").isFalse();
    assertThat(behind.place()).isEqualTo(2);
    assertThat(calls.acquireTurn("queued", UUID.randomUUID(), "v4-waiter", 60, v4Waiter, 0, 30))
        .extracting(ContractCalls.Turn::acquired)
        .isEqualTo(true);
  }

  private void installVersion1() {
    DB.execute(
        installer.fill(FenceSchema.migrationTemplate(FenceSchema.MIGRATION_RESOURCES.get(0))));
  }

  private int version() {
    return DB.queryValue(Integer.class, "SELECT " + schema + ".schema_version()");
  }
}
