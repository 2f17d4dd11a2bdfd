package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.writerfence.QueuedWaiter;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The test kit's delegating stores pass the queue of waiters through to the real store: {@link
 * PrefixedLeaseStore} with every fence name under its prefix (in the database and back), {@link
 * RecordingLeaseStore} with each poll's holder token recorded like an acquire's.
 */
class DelegatingStoresQueueTest {
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration LAPSE = Duration.ofSeconds(30);
  private static final LeaseStore REAL =
      new LeaseStoreOpener.LeaseRow().open(EmbeddedDatabase.get().jdbcUrl(), 2);

  private final String name = FenceNames.random("delegated-queue");

  @Test
  void aPrefixedStoreQueuesUnderThePrefixedNameAndAnswersWithTheAskedOne() {
    PrefixedLeaseStore prefixed = new PrefixedLeaseStore(REAL, "kit-prefix:");
    assertThat(prefixed.keepsQueue()).isTrue();
    StoreLease held = prefixed.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket first = new Ticket(name, UUID.randomUUID(), "first", 0, LAPSE);
    Ticket second = new Ticket(name, UUID.randomUUID(), "second", 7, LAPSE);

    Turn busy = prefixed.acquireInTurn(first, UUID.randomUUID(), TTL);
    Turn enqueued = prefixed.enqueue(second);

    assertThat(busy.acquired()).isFalse();
    assertThat(busy.place()).isEqualTo(1);
    assertThat(enqueued.waiters()).isEqualTo(2);
    assertThat(REAL.queue(name)).as("nothing under the name the code asked for").isEmpty();
    List<QueuedWaiter> inDatabase = REAL.queue(prefixed.inDatabase(name));
    assertThat(inDatabase)
        .extracting(QueuedWaiter::fenceName)
        .containsOnly(prefixed.inDatabase(name));
    // The second ticket's priority of 7 counts as 7 s of waiting: it goes first.
    assertThat(prefixed.queue(name))
        .extracting(QueuedWaiter::fenceName, QueuedWaiter::holderLabel, QueuedWaiter::place)
        .containsExactly(tuple(name, "second", 1), tuple(name, "first", 2));

    assertThat(prefixed.leaveQueue(name, second.waiterToken())).isTrue();
    assertThat(prefixed.leaveQueue(name, second.waiterToken())).as("gone already").isFalse();
    assertThat(held.release()).isTrue();
    Turn won = prefixed.acquireInTurn(first, UUID.randomUUID(), TTL);
    assertThat(won.acquired()).isTrue();
    assertThat(REAL.status(prefixed.inDatabase(name)).orElseThrow().holderLabel())
        .isEqualTo("first");
    assertThat(prefixed.queue(name)).isEmpty();
    assertThat(won.lease().orElseThrow().release()).isTrue();
  }

  @Test
  void aRecordingStoreRecordsAPollLikeAnAcquireAndPassesTheQueueThrough() {
    RecordingLeaseStore recording = new RecordingLeaseStore(REAL);
    assertThat(recording.keepsQueue()).isTrue();
    StoreLease held = REAL.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket waiter = new Ticket(name, UUID.randomUUID(), "waiter", 0, LAPSE);
    UUID busyPoll = UUID.randomUUID();

    assertThat(recording.acquireInTurn(waiter, busyPoll, TTL).place()).isEqualTo(1);
    assertThat(recording.enqueue(waiter).place()).isEqualTo(1);
    assertThat(recording.queue(name))
        .extracting(QueuedWaiter::holderLabel)
        .containsExactly("waiter");
    assertThat(held.release()).isTrue();
    UUID winningPoll = UUID.randomUUID();
    Turn won = recording.acquireInTurn(waiter, winningPoll, TTL);

    assertThat(won.acquired()).isTrue();
    assertThat(won.lease().orElseThrow().release()).isTrue();
    assertThat(recording.acquireTokens()).containsExactly(busyPoll, winningPoll);
    assertThat(recording.releaseTokens()).containsExactly(winningPoll);
    assertThat(recording.queueReads()).isEqualTo(1);
    assertThat(recording.leaveQueue(name, waiter.waiterToken()))
        .as("a granted ticket left the queue")
        .isFalse();
  }
}
