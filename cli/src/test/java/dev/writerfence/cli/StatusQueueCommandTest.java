package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * {@code status} shows each fence's queue of waiters under its lease: tickets queued for real
 * through the lease store's {@code acquire_turn} and {@code enqueue}, one of them let lapse.
 */
class StatusQueueCommandTest {
  private static final Duration TTL = Duration.ofSeconds(60);
  private static final Duration LAPSE = Duration.ofSeconds(60);

  private final EmbeddedDatabase db = EmbeddedDatabase.get();
  private final PgLeaseStore store =
      new PgLeaseStore(db.dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(10));
  private final String name = FenceNames.random("cli-queue");

  @Test
  void statusListsTheQueueInTurnOrderWithLapsedTicketsLastAndTheWaiterTheLeaseIsKeptFor()
      throws Exception {
    StoreLease held = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket gone = new Ticket(name, UUID.randomUUID(), "gone", 0, Duration.ofSeconds(1));
    assertThat(store.acquireInTurn(gone, UUID.randomUUID(), TTL).place()).isEqualTo(1);
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> store.queue(name).stream().noneMatch(w -> w.isWaiting()));
    // Another session is changing the lapsed ticket (as a waiter's poll under way would): no
    // statement deletes a row another session is changing, so every grant, poll and release below
    // leaves it, and it stays shown as lapsed. Otherwise the fence's next use deletes it.
    try (Connection pinned = db.dataSource().getConnection()) {
      pinned.setAutoCommit(false);
      try (PreparedStatement lock =
          pinned.prepareStatement(
              "SELECT 1 FROM "
                  + FenceSchema.DEFAULT_SCHEMA
                  + ".waiter WHERE fence_name = ? AND holder_label = 'gone' FOR UPDATE")) {
        lock.setString(1, name);
        try (ResultSet rs = lock.executeQuery()) {
          assertThat(rs.next()).isTrue();
        }
      }
      Ticket first = ticket("first", 0);
      Ticket urgent = ticket("urgent", 50);
      assertThat(store.acquireInTurn(first, UUID.randomUUID(), TTL).place()).isEqualTo(1);
      // Priority 50 counts as 50 s of waiting: the later ticket goes first.
      assertThat(store.enqueue(urgent).place()).isEqualTo(1);

      Cli.Run run = status();

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out().lines().findFirst().orElseThrow()).endsWith(" state  waiters");
      assertThat(run.out().lines().filter(l -> l.startsWith(name + " ")))
          .singleElement()
          .asString()
          .contains("holder", "held")
          .endsWith(" 2");
      List<String> queue = queueOf(run.out());
      assertThat(queue.get(0))
          .isEqualTo("queue of " + name + ": 2 waiting, 1 lapsed (not yet cleared)");
      assertThat(queue.get(1))
          .matches(" *place +holder label +priority +waiting since +waited +lapses in +reserved");
      assertThat(queue.get(2)).matches(" *1 +urgent +50 .*");
      assertThat(queue.get(3)).matches(" *2 +first +0 .*");
      assertThat(queue.get(4)).matches(" *- +gone +0 .* lapsed");
      assertThat(queue).hasSize(5);
      assertThat(queue.subList(2, 5)).noneMatch(l -> l.endsWith("yes"));

      assertThat(held.release()).isTrue();
      Cli.Run released = status();

      assertThat(released.exitCode()).as(released.err()).isZero();
      List<String> kept = queueOf(released.out());
      assertThat(kept.get(0))
          .isEqualTo(
              "queue of "
                  + name
                  + ": 2 waiting, 1 lapsed (not yet cleared); the released lease is kept for place"
                  + " 1");
      assertThat(kept.get(2)).matches(" *1 +urgent .* yes");
      assertThat(kept.get(3)).doesNotEndWith("yes");

      Cli.Run json = status("--json");
      assertThat(json.exitCode()).as(json.err()).isZero();
      JsonNode root = new ObjectMapper().readTree(json.out());
      assertThat(root.get("queue_kept").asBoolean()).isTrue();
      JsonNode fence =
          StreamSupport.stream(root.get("fences").spliterator(), false)
              .filter(f -> f.get("fence_name").asText().equals(name))
              .findFirst()
              .orElseThrow();
      assertThat(fence.get("state").asText()).isEqualTo("free");
      assertThat(fence.get("waiters").asInt()).isEqualTo(2);
      JsonNode tickets = fence.get("queue");
      assertThat(tickets).hasSize(3);
      assertThat(tickets.get(0).get("holder_label").asText()).isEqualTo("urgent");
      assertThat(tickets.get(0).get("place").asInt()).isEqualTo(1);
      assertThat(tickets.get(0).get("priority").asInt()).isEqualTo(50);
      assertThat(tickets.get(0).get("reserved").asBoolean()).isTrue();
      assertThat(tickets.get(0).get("state").asText()).isEqualTo("waiting");
      assertThat(tickets.get(0).get("lapses_in_seconds").decimalValue()).isPositive();
      assertThat(tickets.get(1).get("holder_label").asText()).isEqualTo("first");
      assertThat(tickets.get(1).get("place").asInt()).isEqualTo(2);
      assertThat(tickets.get(1).get("reserved").asBoolean()).isFalse();
      assertThat(tickets.get(2).get("holder_label").asText()).isEqualTo("gone");
      assertThat(tickets.get(2).get("place").isNull()).isTrue();
      assertThat(tickets.get(2).get("state").asText()).isEqualTo("lapsed");
      assertThat(tickets.get(2).get("lapses_in_seconds").decimalValue()).isNegative();
      assertThat(tickets.get(2).get("waited_seconds").decimalValue())
          .isGreaterThan(tickets.get(1).get("waited_seconds").decimalValue());

      assertThat(store.leaveQueue(name, urgent.waiterToken())).isTrue();
      assertThat(store.leaveQueue(name, first.waiterToken())).isTrue();
      pinned.rollback();
    }
  }

  @Test
  void aSchemaAtContractVersionOneShowsItsLeasesAndSaysItHasNoQueue() throws Exception {
    String schema = "cli_status_v1";
    // What an installer of contract version 1 left: V1's migration alone.
    db.execute(
        FenceSchema.migrationTemplate(FenceSchema.MIGRATION_RESOURCES.get(0))
            .replace("${writer_fence_schema}", schema)
            .replace("${writer_fence_role}", "CURRENT_USER"));

    Cli.Run run = status("--schema", schema);

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("schema '" + schema + "' has no queue of waiters");
    Cli.Run json = status("--schema", schema, "--json");
    assertThat(new ObjectMapper().readTree(json.out()).get("queue_kept").asBoolean()).isFalse();
  }

  private Ticket ticket(String label, int priority) {
    return new Ticket(name, UUID.randomUUID(), label, priority, LAPSE);
  }

  /** The lines of this test's queue section: its heading, the table's header and rows. */
  private List<String> queueOf(String out) {
    List<String> lines = out.lines().toList();
    int start = 0;
    while (!lines.get(start).startsWith("queue of " + name + ":")) {
      start++;
    }
    int end = start + 1;
    while (end < lines.size() && !lines.get(end).isEmpty()) {
      end++;
    }
    return lines.subList(start, end);
  }

  private Cli.Run status(String... more) {
    List<String> args =
        new ArrayList<>(List.of("status", "--jdbc-url", db.jdbcUrl(), "--user", "postgres"));
    args.addAll(List.of(more));
    return Cli.run(args.toArray(String[]::new));
  }
}
