package dev.writerfence.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lease row's release signal on a real PostgreSQL: {@code LISTEN writer_fence_release} on a
 * connection of its own hears a release that found waiters, and wakes a waiting writer.
 */
class ReleaseListenerTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final long LONG = TimeUnit.SECONDS.toNanos(30);

  private final PgLeaseStore store =
      new PgLeaseStore(DB.dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(10));

  @Test
  void aReleaseThatFindsWaitersWakesAWaitingWriter() throws Exception {
    String name = FenceNames.random("signal");
    StoreLease held = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    store.enqueue(new Ticket(name, UUID.randomUUID(), "waiter", 0, Duration.ofSeconds(30)));
    try (ReleaseListener signal = (ReleaseListener) store.openReleaseSignal().orElseThrow()) {
      // Nothing can be heard before the listener is connected: such a wait returns at once.
      assertThat(signal.awaitAfter(signal.seen(), LONG)).isTrue();
      await().atMost(Duration.ofSeconds(30)).until(signal::isListening);
      long before = signal.seen();

      assertThat(held.release()).isTrue();

      assertThat(signal.awaitAfter(before, LONG)).as("woken by the release").isTrue();
      assertThat(signal.seen()).isGreaterThan(before);
    }
  }

  @Test
  void aClosedSignalNeverHoldsAWriterUp() throws Exception {
    ReleaseListener signal = (ReleaseListener) store.openReleaseSignal().orElseThrow();
    signal.awaitAfter(signal.seen(), 0);
    await().atMost(Duration.ofSeconds(30)).until(signal::isListening);

    signal.close();

    assertThat(signal.awaitAfter(signal.seen(), LONG)).isTrue();
    await().atMost(Duration.ofSeconds(30)).until(() -> !signal.isListening());
  }
}
