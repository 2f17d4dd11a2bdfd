package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFence;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * What every backend of {@link LeaseStore} must do, run against a real database by each backend's
 * subclass: one winner, busy at once, the same holder token gets its lease back, release only by
 * the holder (through the handle its acquire returned), tokens that grow, renew only while held,
 * status of a held fence; and, hammered by threads of this JVM and of forked writer JVMs through
 * {@code WriterFence}, a record of critical sections in which none overlaps and fencing tokens rise
 * in time order.
 *
 * <p>The queue of waiters: a store that {@linkplain LeaseStore#keepsQueue() keeps one} serves
 * tickets in arrival order with a higher priority first, refuses a writer without a ticket while
 * tickets wait, keeps a released lease for the head, lets the next waiter win once the head's
 * ticket lapses, and never lets a waiter past a live holder before its TTL. A store without a queue
 * must answer as the {@link LeaseStore} defaults say: a poll is one plain acquire, nothing is
 * queued. Either way a waiter's poll never shares the lease with anyone.
 */
public abstract class LeaseStoreContract {
  /** Threads of the race; the store under test must serve this many attempts at once. */
  public static final int RACERS = 8;

  private static final Duration TTL = Duration.ofSeconds(30);
  private static final Duration LAPSE = Duration.ofSeconds(30);

  private static final Duration HAMMER = Duration.ofSeconds(3);
  private static final int HAMMER_PROCESSES = 2;
  private static final int HAMMER_THREADS_PER_PROCESS = 4;
  private static final int HAMMER_THREADS_HERE = 4;

  /** This test's own fence name. */
  protected String name;

  /**
   * @return the store under test; the same instance for the whole test
   */
  protected abstract LeaseStore store();

  /**
   * @return what opens the store under test in a forked writer JVM, at {@link #storeUrl()}
   */
  protected abstract Class<? extends LeaseStoreOpener> opener();

  /**
   * @return the JDBC URL at which forked writer JVMs open the store under test
   */
  protected abstract String storeUrl();

  @BeforeEach
  void freshFenceName(TestInfo test) {
    name = FenceNames.random(test.getTestMethod().map(Method::getName).orElse("contract"));
  }

  @Test
  public void oneHolderAtATimeAndBusyAnswersAtOnce() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "first", TTL).orElseThrow();

    Optional<StoreLease> second = store().acquire(name, UUID.randomUUID(), "second", TTL);

    // Busy is an answer given while the holder still holds, not a wait for its release.
    assertThat(second).isEmpty();
    assertThat(store().status(name))
        .hasValueSatisfying(s -> assertThat(s.holderLabel()).isEqualTo("first"));
    assertThat(held.fencingToken()).isPositive();
    assertThat(held.release()).isTrue();
  }

  @Test
  public void theSameHolderTokenGetsItsCurrentLeaseBack() {
    UUID holder = UUID.randomUUID();
    StoreLease first = store().acquire(name, holder, "first", TTL).orElseThrow();

    StoreLease again = store().acquire(name, holder, "first", TTL).orElseThrow();

    assertThat(again.fencingToken()).isEqualTo(first.fencingToken());
    assertThat(again.acquiredAt()).isEqualTo(first.acquiredAt());
    assertThat(first.release()).isTrue();
    assertThat(again.release()).as("one hold, released once").isFalse();
  }

  @Test
  public void releaseFreesOnlyForItsHolderAndTheNextHolderGetsAHigherToken() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();

    assertThat(store().acquire(name, UUID.randomUUID(), "late", TTL)).as("still held").isEmpty();
    assertThat(held.release()).isTrue();
    assertThat(held.release()).as("twice").isFalse();
    StoreLease next = store().acquire(name, UUID.randomUUID(), "next", TTL).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
    assertThat(held.release()).as("the old handle frees nothing of the next holder").isFalse();
    assertThat(store().status(name).filter(LeaseStatus::isHeld)).as("next still holds").isPresent();
    assertThat(next.release()).isTrue();
  }

  @Test
  public void renewAnswersForAHeldLeaseOnly() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();

    Optional<java.time.Instant> renewed = held.renew(Duration.ofSeconds(60));

    assertThat(renewed).hasValueSatisfying(t -> assertThat(t).isAfter(held.acquiredAt()));
    assertThat(held.release()).isTrue();
    assertThat(held.renew(Duration.ofSeconds(60))).as("released").isEmpty();
  }

  @Test
  public void statusShowsTheHoldAndNoHoldAfterRelease() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "shown", TTL).orElseThrow();

    LeaseStatus status = store().status(name).orElseThrow();

    assertThat(status.isHeld()).isTrue();
    assertThat(status.holderLabel()).isEqualTo("shown");
    assertThat(status.fencingToken()).isEqualTo(held.fencingToken());
    assertThat(store().statusAll()).extracting(LeaseStatus::fenceName).contains(name);
    assertThat(held.release()).isTrue();
    assertThat(store().status(name).filter(LeaseStatus::isHeld)).isEmpty();
  }

  @Test
  public void aRaceOfManyThreadsHasExactlyOneWinner() throws Exception {
    raceInRounds((fence, racer) -> store().acquire(fence, UUID.randomUUID(), "racer", TTL));
  }

  /** A racer's one attempt at the fence of a round. */
  @FunctionalInterface
  private interface Attempt {
    Optional<StoreLease> at(String fence, int racer);
  }

  /** Five rounds, each of {@link #RACERS} threads that start at once: one winner in each. */
  private void raceInRounds(Attempt attempt) throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(RACERS);
    try {
      for (int round = 0; round < 5; round++) {
        String fence = name + "/" + round;
        CyclicBarrier start = new CyclicBarrier(RACERS);
        List<Future<Optional<StoreLease>>> attempts = new ArrayList<>();
        for (int i = 0; i < RACERS; i++) {
          int racer = i;
          attempts.add(
              threads.submit(
                  () -> {
                    start.await();
                    return attempt.at(fence, racer);
                  }));
        }
        List<StoreLease> won = new ArrayList<>();
        for (Future<Optional<StoreLease>> a : attempts) {
          a.get().ifPresent(won::add);
        }
        assertThat(won).as("winners of round %d", round).hasSize(1);
        assertThat(won.get(0).release()).isTrue();
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  public void threadsOfThreeJvmsNeverOverlapAndTokensRiseInTimeOrder() throws Exception {
    EmbeddedDatabase recordDb = EmbeddedDatabase.get();
    CriticalSections record =
        new CriticalSections(recordDb.dataSource(), CriticalSections.freshTable("contract"))
            .create();
    List<ForkedJvm> processes = new ArrayList<>();
    try {
      for (int i = 0; i < HAMMER_PROCESSES; i++) {
        processes.add(
            WriterProcess.forkHammer(
                opener(),
                storeUrl(),
                recordDb,
                record.table(),
                name,
                HAMMER_THREADS_PER_PROCESS,
                HAMMER,
                "process-" + i));
      }
      processes.forEach(p -> p.send("go"));
      Hammer.Outcome here =
          Hammer.run(
              WriterFence.builder(store()).build(),
              name,
              record,
              "test-jvm",
              HAMMER_THREADS_HERE,
              HAMMER);

      assertThat(here.failures()).isEmpty();
      int sections = here.sections();
      for (ForkedJvm process : processes) {
        String[] done = process.awaitLine("done ", Hammer.SERVED_BY.plusMinutes(1)).split(" ");
        assertThat(done[3]).as("failures in %s", process).isEqualTo("0");
        sections += Integer.parseInt(done[1]);
      }
      List<Section> recorded = record.load();
      SectionReport report = SectionChecker.check(recorded);
      assertThat(report.violations()).isEmpty();
      assertThat(report.sections()).isEqualTo(sections);
      assertThat(recorded)
          .extracting(s -> s.writer().replaceAll("[@/].*", ""))
          .as("every JVM got the lease")
          .contains("test-jvm", "process-0", "process-1");
      assertThat(report.handovers()).as("the writers took turns").isGreaterThan(HAMMER_PROCESSES);
    } finally {
      processes.forEach(ForkedJvm::close);
    }
  }

  private Ticket ticket(String label, int priority) {
    return new Ticket(name, UUID.randomUUID(), label, priority, LAPSE);
  }

  private Turn poll(Ticket ticket) {
    return store().acquireInTurn(ticket, UUID.randomUUID(), TTL);
  }

  private List<String> queuedLabels() {
    return store().queue(name).stream()
        .filter(QueuedWaiter::isWaiting)
        .map(QueuedWaiter::holderLabel)
        .toList();
  }

  @Test
  public void aLoneWaiterTakesAFreeLeaseAtOnceAndHoldsIt() {
    Turn turn = poll(ticket("alone", 0));

    assertThat(turn.acquired()).isTrue();
    assertThat(turn.place()).isZero();
    assertThat(store().acquire(name, UUID.randomUUID(), "other", TTL)).as("held").isEmpty();
    assertThat(queuedLabels()).as("a served ticket leaves the queue").isEmpty();
    assertThat(turn.lease().orElseThrow().release()).isTrue();
  }

  @Test
  public void aWaiterIsBusyWhileAnotherHoldsAndTakesTheLeaseAfterTheRelease() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket waiter = ticket("waiter", 0);

    Turn busy = poll(waiter);

    assertThat(busy.acquired()).isFalse();
    if (store().keepsQueue()) {
      assertThat(busy.place()).as("the head").isEqualTo(1);
      assertThat(busy.waiters()).isEqualTo(1);
      assertThat(queuedLabels()).containsExactly("waiter");
    } else {
      assertThat(busy).isEqualTo(Turn.BUSY_UNQUEUED);
      assertThat(store().enqueue(waiter)).isEqualTo(Turn.BUSY_UNQUEUED);
      assertThat(queuedLabels()).isEmpty();
    }
    assertThat(held.release()).isTrue();
    Turn won = poll(waiter);
    assertThat(won.acquired()).isTrue();
    assertThat(won.lease().orElseThrow().fencingToken()).isGreaterThan(held.fencingToken());
    assertThat(won.lease().orElseThrow().release()).isTrue();
  }

  @Test
  public void waitersTakeTurnsInArrivalOrderAndAHigherPriorityGoesFirst() {
    StoreLease first = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    List<Ticket> tickets = new ArrayList<>();
    for (String label : List.of("a", "b", "c")) {
      tickets.add(ticket(label, 0));
      assertThat(poll(tickets.get(tickets.size() - 1)).acquired()).isFalse();
    }
    Ticket urgent = ticket("urgent", 50);
    assertThat(poll(urgent).acquired()).isFalse();
    tickets.add(urgent);
    if (!store().keepsQueue()) {
      assertThat(queuedLabels()).as("no queue to show").isEmpty();
      assertThat(store().leaveQueue(name, urgent.waiterToken())).isFalse();
      assertThat(first.release()).isTrue();
      return;
    }
    assertThat(queuedLabels()).containsExactly("urgent", "a", "b", "c");

    // Each round frees the lease and polls every waiter, the last to arrive first: only the head
    // may win, whoever asks first.
    List<String> wins = new ArrayList<>();
    StoreLease holding = first;
    long token = first.fencingToken();
    while (!tickets.isEmpty()) {
      assertThat(holding.release()).isTrue();
      holding = null;
      List<Ticket> lastFirst = new ArrayList<>(tickets);
      Collections.reverse(lastFirst);
      for (Ticket t : lastFirst) {
        Turn turn = poll(t);
        if (turn.acquired()) {
          assertThat(holding).as("one winner per round").isNull();
          holding = turn.lease().orElseThrow();
          assertThat(holding.fencingToken()).isGreaterThan(token);
          token = holding.fencingToken();
          wins.add(t.holderLabel());
          tickets.remove(t);
        }
      }
      assertThat(holding).as("the head won round %d", wins.size()).isNotNull();
    }
    assertThat(holding.release()).isTrue();
    assertThat(wins).containsExactly("urgent", "a", "b", "c");
  }

  @Test
  public void whileTicketsWaitAWriterWithoutOneIsBusyAndTheReleasedLeaseIsKeptForTheHead() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket head = ticket("head", 0);
    assertThat(poll(head).acquired()).isFalse();

    assertThat(held.release()).isTrue();
    Optional<StoreLease> barging = store().acquire(name, UUID.randomUUID(), "barging", TTL);
    Turn later = poll(ticket("later-but-urgent", 100));

    if (!store().keepsQueue()) {
      assertThat(barging).as("no queue: the free lease goes to whoever asks").isPresent();
      assertThat(later.acquired()).isFalse();
      assertThat(barging.get().release()).isTrue();
      return;
    }
    assertThat(barging).as("a try while a ticket waits").isEmpty();
    assertThat(later.acquired()).as("kept for the head, even against a higher priority").isFalse();
    assertThat(store().queue(name))
        .filteredOn(QueuedWaiter::reserved)
        .extracting(QueuedWaiter::holderLabel)
        .containsExactly("head");
    Turn won = poll(head);
    assertThat(won.acquired()).isTrue();
    assertThat(won.lease().orElseThrow().release()).isTrue();
  }

  @Test
  public void aWaiterThatStopsPollingLapsesAndTheNextWaiterWinsOnlyAfterThat() {
    StoreLease held = store().acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    Ticket gone = new Ticket(name, UUID.randomUUID(), "gone", 0, Duration.ofSeconds(1));
    Ticket next = ticket("next", 0);
    assertThat(poll(gone).acquired()).isFalse();
    assertThat(poll(next).acquired()).isFalse();
    List<QueuedWaiter> queued = store().queue(name);
    assertThat(held.release()).isTrue();

    AtomicReference<StoreLease> won = new AtomicReference<>();
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> poll(next).lease().map(l -> won.compareAndSet(null, l)).orElse(false));

    if (store().keepsQueue()) {
      Instant goneLapses =
          queued.stream()
              .filter(w -> w.holderLabel().equals("gone"))
              .findFirst()
              .orElseThrow()
              .lapsesAt();
      // While the first ticket lived it was the head, and the free lease was kept for it.
      assertThat(won.get().acquiredAt()).isAfterOrEqualTo(goneLapses);
      assertThat(queuedLabels()).as("the lapsed ticket holds no place").isEmpty();
    }
    assertThat(won.get().release()).isTrue();
  }

  @Test
  public void aRaceOfWaitersAndWritersWithoutTicketsHasExactlyOneWinner() throws Exception {
    raceInRounds(
        (fence, racer) ->
            racer % 2 == 0
                ? store()
                    .acquireInTurn(
                        new Ticket(fence, UUID.randomUUID(), "waiter", 0, LAPSE),
                        UUID.randomUUID(),
                        TTL)
                    .lease()
                : store().acquire(fence, UUID.randomUUID(), "racer", TTL));
  }
}
