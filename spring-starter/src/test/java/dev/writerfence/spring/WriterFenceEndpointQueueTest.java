package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spring.actuate.WriterFenceEndpoint;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The endpoint's queue of one fence, read from a real queue: a lapsed ticket stays listed after the
 * live one, with no place and the state {@code lapsed}, and is not counted among the waiters.
 */
class WriterFenceEndpointQueueTest {
  private static final Duration TTL = Duration.ofSeconds(60);

  @Test
  void aLapsedTicketIsListedLastAsLapsedAndNotCounted() throws SQLException {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    PgLeaseStore store =
        new PgLeaseStore(db.dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(5));
    String name = FenceNames.random("endpoint-queue");
    StoreLease held = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket gone = new Ticket(name, UUID.randomUUID(), "gone", 0, Duration.ofSeconds(1));
    Ticket live = new Ticket(name, UUID.randomUUID(), "live", 0, Duration.ofSeconds(60));
    try (WriterFence fence = WriterFence.builder(store).build()) {
      store.enqueue(gone);
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> store.queue(name).stream().noneMatch(QueuedWaiter::isWaiting));
      // Another session is changing the lapsed ticket (as a waiter's poll under way would): no
      // statement deletes a row another session is changing, so the enqueue below leaves it, and
      // it stays listed as lapsed. Otherwise the fence's next use deletes it at once.
      try (Connection pinned = db.dataSource().getConnection()) {
        pinned.setAutoCommit(false);
        lockTicket(pinned, name, "gone");
        store.enqueue(live);

        WriterFenceEndpoint.Lease lease = new WriterFenceEndpoint(fence).lease(name);

        assertThat(lease.state()).isEqualTo("held");
        assertThat(lease.waiters()).isEqualTo(1);
        assertThat(lease.queue())
            .extracting(
                WriterFenceEndpoint.Waiter::holderLabel,
                WriterFenceEndpoint.Waiter::place,
                WriterFenceEndpoint.Waiter::state)
            .containsExactly(tuple("live", 1, "waiting"), tuple("gone", null, "lapsed"));
        assertThat(new WriterFenceEndpoint(fence).leases().leases())
            .filteredOn(l -> l.fenceName().equals(name))
            .singleElement()
            .extracting(WriterFenceEndpoint.Lease::waiters)
            .isEqualTo(1);
        pinned.rollback();
      }
    } finally {
      store.leaveQueue(name, live.waiterToken());
      store.leaveQueue(name, gone.waiterToken());
      held.release();
    }
  }

  private static void lockTicket(Connection connection, String name, String label)
      throws SQLException {
    try (PreparedStatement lock =
        connection.prepareStatement(
            "SELECT 1 FROM "
                + FenceSchema.DEFAULT_SCHEMA
                + ".waiter WHERE fence_name = ? AND holder_label = ? FOR UPDATE")) {
      lock.setString(1, name);
      lock.setString(2, label);
      try (ResultSet rs = lock.executeQuery()) {
        assertThat(rs.next()).as("the lapsed ticket is still a row").isTrue();
      }
    }
  }
}
