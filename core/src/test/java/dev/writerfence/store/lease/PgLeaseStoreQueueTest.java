package dev.writerfence.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceRequest;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import dev.writerfence.testing.ContractCalls;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import dev.writerfence.testing.Pools;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The queue of waiters of the lease-row backend on a real PostgreSQL, across threads and across
 * writer processes of their own: arrival order, a dead head's ticket lapsing, a dead holder's TTL,
 * priority with its aging bound, and a try that finds others queued.
 */
class PgLeaseStoreQueueTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration LAPSE = Duration.ofSeconds(30);
  private static final Duration EXPECT = Duration.ofSeconds(60);
  private static final ExecutorService THREADS = Executors.newCachedThreadPool();

  private final PgLeaseStore store =
      new PgLeaseStore(
          Pools.warmPool(DB.jdbcUrl(), "postgres", 8),
          FenceSchema.DEFAULT_SCHEMA,
          Duration.ofSeconds(10));
  private String name;

  @BeforeEach
  void freshFenceName(TestInfo test) {
    name = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("queue"));
  }

  @AfterAll
  static void stopThreads() {
    THREADS.shutdownNow();
  }

  @Test
  void threadsQueuedInAKnownOrderWinInThatOrder() throws Exception {
    StoreLease first = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    List<Ticket> tickets = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Ticket ticket = new Ticket(name, UUID.randomUUID(), "thread-" + i, 0, LAPSE);
      assertThat(store.enqueue(ticket).place()).isEqualTo(i + 1);
      tickets.add(ticket);
    }
    List<String> wins = new CopyOnWriteArrayList<>();
    List<Future<?>> waiters = new ArrayList<>();
    List<Ticket> startOrder = new ArrayList<>(tickets);
    Collections.shuffle(startOrder);
    for (Ticket ticket : startOrder) {
      waiters.add(
          THREADS.submit(
              () -> {
                Turn turn;
                while (!(turn = store.acquireInTurn(ticket, UUID.randomUUID(), TTL)).acquired()) {
                  Thread.sleep(5);
                }
                wins.add(ticket.holderLabel());
                Thread.sleep(20); // a critical section, so the others poll a held lease too
                assertThat(turn.lease().orElseThrow().release()).isTrue();
                return null;
              }));
    }
    assertThat(first.release()).isTrue();
    for (Future<?> waiter : waiters) {
      waiter.get();
    }

    assertThat(wins).containsExactlyElementsOf(tickets.stream().map(Ticket::holderLabel).toList());
  }

  @Test
  void C26_processesWinInArrivalOrderAndAKilledHeadOnlyHoldsUpTheQueueUntilItsTicketLapses()
      throws Exception {
    StoreLease first = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    List<ForkedJvm> processes = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        ForkedJvm process = writer("process-" + i, 0, 2);
        process.send("wait");
        assertThat(process.awaitLine("queued ", EXPECT)).isEqualTo("queued " + (i + 1));
        processes.add(process);
      }
      Instant deadHeadLapses = ticketOf("process-0").lapsesAt();
      processes.get(0).process().destroyForcibly(); // SIGKILL while it waits
      processes.get(0).awaitExit(EXPECT);
      assertThat(first.release()).isTrue();

      long token = first.fencingToken();
      List<ForkedJvm> living = processes.subList(1, 4);
      for (int i = 0; i < living.size(); i++) {
        ForkedJvm process = living.get(i);
        String[] won = process.awaitLine("won ", EXPECT).split(" ");
        for (ForkedJvm later : living.subList(i + 1, living.size())) {
          assertThat(later.output())
              .as("%s waits its turn", later)
              .noneMatch(l -> l.startsWith("won "));
        }
        assertThat(Long.parseLong(won[1])).isGreaterThan(token);
        token = Long.parseLong(won[1]);
        if (process == processes.get(1)) {
          assertThat(Instant.parse(won[2]))
              .as("the lease was kept for the dead head until its ticket lapsed")
              .isAfterOrEqualTo(deadHeadLapses);
        }
        process.send("release");
        assertThat(process.awaitLine("released ", EXPECT)).isEqualTo("released true");
      }
    } finally {
      processes.forEach(ForkedJvm::close);
    }
  }

  @Test
  void C26_aHolderKilledWithSigkillKeepsTheHeadWaitingUntilItsTtlRunsOut() throws Exception {
    Instant expires;
    try (ForkedJvm holder = writer("holder", 0, 2)) {
      holder.send("hold 3");
      expires = Instant.parse(holder.awaitLine("held ", EXPECT).split(" ")[2]);
      holder.process().destroyForcibly();
      holder.awaitExit(EXPECT);
    }
    Ticket head = new Ticket(name, UUID.randomUUID(), "head", 0, LAPSE);

    AtomicReference<StoreLease> won = new AtomicReference<>();
    await()
        .atMost(EXPECT)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () ->
                store
                    .acquireInTurn(head, UUID.randomUUID(), TTL)
                    .lease()
                    .map(l -> won.compareAndSet(null, l))
                    .orElse(false));

    assertThat(won.get().acquiredAt()).as("not before the TTL").isAfterOrEqualTo(expires);
    assertThat(won.get().release()).isTrue();
  }

  @Test
  void C27_aLaterHigherPriorityTakesTheNextTurnAndTheLowOneWinsWithinItsBound() throws Exception {
    int high = 2; // two levels: the low ticket gives way to highs arriving up to 2 s after it
    StoreLease first = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket low = new Ticket(name, UUID.randomUUID(), "low", 0, LAPSE);
    assertThat(store.enqueue(low).place()).isEqualTo(1);
    List<Ticket> tickets = new ArrayList<>(List.of(low));
    // A stream of high-priority writers, arriving for longer than the low one's bound.
    for (int i = 0; i < 12; i++) {
      Ticket ticket = new Ticket(name, UUID.randomUUID(), "high-" + i, high, LAPSE);
      store.enqueue(ticket);
      tickets.add(ticket);
      Thread.sleep(300);
    }
    Map<String, Instant> arrived =
        store.queue(name).stream()
            .collect(Collectors.toMap(QueuedWaiter::holderLabel, QueuedWaiter::waitingSince));
    Instant bound = arrived.get("low").plusSeconds(high);

    List<String> wins = serveInTurns(first, tickets);

    assertThat(wins.get(0)).as("the next turn").isEqualTo("high-0");
    int lowTurn = wins.indexOf("low");
    assertThat(wins.subList(0, lowTurn))
        .as("only highs that arrived within the bound went before the low one")
        .allMatch(w -> arrived.get(w).isBefore(bound));
    assertThat(wins.subList(lowTurn + 1, wins.size()))
        .as("the highs that arrived later waited for it")
        .isNotEmpty()
        .allMatch(w -> !arrived.get(w).isBefore(bound));
  }

  @Test
  void C28_aTryWhileOthersQueueIsBusyAlthoughTheLeaseIsFree() {
    StoreLease held = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket waiting = new Ticket(name, UUID.randomUUID(), "waiting", 0, LAPSE);
    assertThat(store.acquireInTurn(waiting, UUID.randomUUID(), TTL).acquired()).isFalse();
    assertThat(held.release()).isTrue();

    WriterFence fence = WriterFence.builder(store).build();
    try {
      assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("try").build())).isEmpty();
      assertThat(store.leaveQueue(name, waiting.waiterToken())).isTrue();
      assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("try").build()))
          .as("nobody waits any more")
          .hasValueSatisfying(lease -> assertThat(fence.release(lease)).isTrue());
    } finally {
      fence.close();
    }
  }

  @Test
  void aReleaseWithWaitersNotifiesListenersAndOneWithoutWaitersDoesNot() throws Exception {
    try (Connection listener = DB.dataSource().getConnection();
        Statement st = listener.createStatement()) {
      st.execute("LISTEN writer_fence_release");
      PGConnection notifications = listener.unwrap(PGConnection.class);

      StoreLease alone = store.acquire(name, UUID.randomUUID(), "alone", TTL).orElseThrow();
      assertThat(alone.release()).isTrue();
      StoreLease held = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
      Ticket waiter = new Ticket(name, UUID.randomUUID(), "waiter", 0, LAPSE);
      assertThat(store.enqueue(waiter).place()).isEqualTo(1);
      assertThat(held.release()).isTrue();

      // The first release had no waiter: of this fence's notifications, the one is the second's.
      PGNotification[] received = notifications.getNotifications(30_000);
      String payload =
          "{\"schema\" : \""
              + FenceSchema.DEFAULT_SCHEMA
              + "\", \"fence_name\" : \""
              + name
              + "\"}";
      assertThat(received)
          .filteredOn(n -> n.getParameter().contains(name))
          .extracting(PGNotification::getName, PGNotification::getParameter)
          .containsExactly(tuple("writer_fence_release", payload));
      assertThat(
              store.acquireInTurn(waiter, UUID.randomUUID(), TTL).lease().orElseThrow().release())
          .isTrue();
    }
  }

  @Test
  void aHeadThatLeavesPassesTheKeptLeaseToTheNextWaiter() {
    StoreLease held = store.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket first = new Ticket(name, UUID.randomUUID(), "first", 0, LAPSE);
    Ticket second = new Ticket(name, UUID.randomUUID(), "second", 0, LAPSE);
    store.enqueue(first);
    store.enqueue(second);
    assertThat(held.release()).isTrue();
    assertThat(reservedFor()).containsExactly("first");

    assertThat(store.leaveQueue(name, first.waiterToken())).isTrue();
    assertThat(store.leaveQueue(name, first.waiterToken())).as("once").isFalse();

    assertThat(reservedFor()).containsExactly("second");
    Ticket urgent = new Ticket(name, UUID.randomUUID(), "urgent", 100, LAPSE);
    assertThat(store.acquireInTurn(urgent, UUID.randomUUID(), TTL).acquired())
        .as("kept for the second, not for a later higher priority")
        .isFalse();
    Turn won = store.acquireInTurn(second, UUID.randomUUID(), TTL);
    assertThat(won.lease()).isPresent();
    assertThat(won.waiters()).as("urgent still waits").isEqualTo(1);
    assertThat(won.lease().orElseThrow().release()).isTrue();
    assertThat(store.leaveQueue(name, urgent.waiterToken())).isTrue();
  }

  @Test
  void aRepeatedPollOfTheHolderTokenThatWonGetsItsLeaseBackWhileOthersWait() {
    Ticket waiter = new Ticket(name, UUID.randomUUID(), "waiter", 0, LAPSE);
    UUID holder = UUID.randomUUID();
    StoreLease won = store.acquireInTurn(waiter, holder, TTL).lease().orElseThrow();
    Ticket other = new Ticket(name, UUID.randomUUID(), "other", 0, LAPSE);
    assertThat(store.acquireInTurn(other, UUID.randomUUID(), TTL).acquired()).isFalse();

    // The answer of the winning poll was lost; the writer asks again with the same tokens.
    Turn again = store.acquireInTurn(waiter, holder, TTL);

    assertThat(again.lease())
        .hasValueSatisfying(
            l -> {
              assertThat(l.fencingToken()).isEqualTo(won.fencingToken());
              assertThat(l.acquiredAt()).isEqualTo(won.acquiredAt());
            });
    assertThat(store.queue(name))
        .extracting(QueuedWaiter::holderLabel)
        .as("the repeat took no ticket")
        .containsExactly("other");
    assertThat(won.release()).isTrue();
    assertThat(store.leaveQueue(name, other.waiterToken())).isTrue();
  }

  private List<String> reservedFor() {
    return store.queue(name).stream()
        .filter(QueuedWaiter::reserved)
        .map(QueuedWaiter::holderLabel)
        .toList();
  }

  @Test
  void theQueuesInputRulesAreTheSameInJavaAndInSql() {
    ContractCalls sql = new ContractCalls(DB.dataSource(), FenceSchema.DEFAULT_SCHEMA);
    UUID waiter = UUID.randomUUID();
    for (int priority : new int[] {-101, 101}) {
      assertThatThrownBy(() -> new Ticket(name, waiter, "w", priority, LAPSE))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("priority " + priority + " is not allowed: -100 to 100");
      assertThatThrownBy(() -> sql.enqueue(name, waiter, "w", priority, 5))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("priority " + priority + " is not allowed: -100 to 100")
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("22023"));
    }
    for (int lapse : new int[] {0, 61}) {
      assertThatThrownBy(() -> new Ticket(name, waiter, "w", 0, Duration.ofSeconds(lapse)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("is not allowed: whole seconds from 1 to 60");
      assertThatThrownBy(() -> sql.acquireTurn(name, UUID.randomUUID(), "w", 30, waiter, 0, lapse))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("ticket lapse " + lapse + " seconds is not allowed: 1 to 60");
    }
    assertThatThrownBy(() -> sql.acquireTurn(name, UUID.randomUUID(), "w", 30, null, 0, 5))
        .hasMessageContaining("waiter token is NULL");
    assertThatThrownBy(() -> sql.enqueue(" " + name, waiter, "w", 0, 5))
        .hasMessageContaining("no leading or trailing white space");
    assertThat(new Ticket(name, waiter, null, -100, Duration.ofSeconds(60)).priority())
        .isEqualTo(-100);
  }

  /**
   * Releases the lease and polls every waiter, the last to arrive first, until each has won once:
   * the order in which they won.
   */
  private List<String> serveInTurns(StoreLease holding, List<Ticket> waiting) {
    List<Ticket> left = new ArrayList<>(waiting);
    Collections.reverse(left);
    List<String> wins = new ArrayList<>();
    while (!left.isEmpty()) {
      assertThat(holding.release()).isTrue();
      holding = null;
      for (Ticket ticket : List.copyOf(left)) {
        Turn turn = store.acquireInTurn(ticket, UUID.randomUUID(), TTL);
        if (turn.acquired()) {
          assertThat(holding).as("one winner per turn").isNull();
          holding = turn.lease().orElseThrow();
          wins.add(ticket.holderLabel());
          left.remove(ticket);
        }
      }
      assertThat(holding).as("the head won turn %d", wins.size() + 1).isNotNull();
    }
    assertThat(holding.release()).isTrue();
    return wins;
  }

  private QueuedWaiter ticketOf(String label) {
    return store.queue(name).stream()
        .filter(w -> label.equals(w.holderLabel()))
        .findFirst()
        .orElseThrow();
  }

  private ForkedJvm writer(String label, int priority, int lapseSeconds) {
    ForkedJvm jvm =
        ForkedJvm.start(
            QueuedWriterProcess.class,
            DB.jdbcUrl(),
            FenceSchema.DEFAULT_SCHEMA,
            name,
            label,
            Integer.toString(priority),
            Integer.toString(lapseSeconds));
    jvm.awaitLine("ready", EXPECT);
    return jvm;
  }
}
