package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.OtherWriter;
import dev.writerfence.testing.Pools;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link WriterFence} drives the queue of contract version 2 (ADR 37): a busy call takes a ticket
 * and waits its turn; the threads of one fence wait as one waiter, and a release keeps the lease
 * for the head, so no fence's threads hand the lease to each other while another fence waits. Each
 * {@code WriterFence} here has a pool of its own and counts as one process, as it does for the
 * database.
 */
class FairQueueTest extends FenceTestSupport {
  /** Waits long enough that no call of these tests gives up while the others take their turns. */
  private static final BusyRetryPolicy PATIENT =
      BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(60));

  private final PgLeaseStore store =
      new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));

  @Test
  void C26_writersThatStartWaitingInAKnownOrderWinInThatOrder() throws Exception {
    WriterFence holderFence = fence();
    FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
    List<String> wins = new CopyOnWriteArrayList<>();
    List<WriterFence> fences = new ArrayList<>();
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    try {
      for (int i = 1; i <= 3; i++) {
        String who = "waiter-" + i;
        WriterFence fence = fence(DB.dataSource()).retryPolicy(PATIENT).build();
        fences.add(fence);
        calls.add(CompletableFuture.runAsync(() -> callRecording(fence, who, wins)));
        int queued = i;
        // The next writer starts only once this one holds its place in the queue.
        await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == queued);
      }
      assertThat(waiting())
          .extracting(QueuedWaiter::holderLabel)
          .containsExactly(shown("waiter-1"), shown("waiter-2"), shown("waiter-3"));
    } finally {
      holderFence.release(held);
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

    assertThat(wins).containsExactly("waiter-1", "waiter-2", "waiter-3");
    assertThat(waiting()).as("granted tickets leave the queue").isEmpty();
    fences.forEach(WriterFence::close);
    holderFence.close();
  }

  @Test
  void C27_aHigherPriorityThatArrivesLaterWinsFirst() throws Exception {
    WriterFence holderFence = fence();
    FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
    List<String> wins = new CopyOnWriteArrayList<>();
    WriterFence low = fence(DB.dataSource()).retryPolicy(PATIENT).build();
    WriterFence high = fence(DB.dataSource()).retryPolicy(PATIENT).defaultPriority(50).build();
    CompletableFuture<Void> lowCall;
    CompletableFuture<Void> highCall;
    try {
      lowCall = CompletableFuture.runAsync(() -> callRecording(low, "low", wins));
      await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == 1);
      highCall = CompletableFuture.runAsync(() -> callRecording(high, "high", wins));
      await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == 2);
      assertThat(waiting())
          .extracting(QueuedWaiter::holderLabel)
          .containsExactly(shown("high"), shown("low"));
      assertThat(waiting()).extracting(QueuedWaiter::priority).containsExactly(50, 0);
    } finally {
      holderFence.release(held);
    }
    CompletableFuture.allOf(lowCall, highCall).get(60, TimeUnit.SECONDS);

    assertThat(wins).containsExactly("high", "low");
    low.close();
    high.close();
    holderFence.close();
  }

  @Test
  void aRequestsOwnPriorityGoesIntoItsTicket() throws Exception {
    WriterFence holderFence = fence();
    FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
    WriterFence fence = fence(DB.dataSource()).retryPolicy(PATIENT).build();
    CompletableFuture<Void> call =
        CompletableFuture.runAsync(
            () -> {
              try {
                fence.run(
                    FenceRequest.builder(name).holderLabel("urgent").priority(-7).build(),
                    () -> {});
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try {
      await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == 1);
      assertThat(waiting().get(0).priority()).isEqualTo(-7);
    } finally {
      holderFence.release(held);
    }
    call.get(60, TimeUnit.SECONDS);
    fence.close();
    holderFence.close();
  }

  @Test
  void busyAfterTheBudgetSaysThePlaceAndLeavesTheQueue() {
    WriterFence holderFence = fence();
    FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
    BusyRetryPolicy shortWait = BusyRetryPolicy.defaults().withMaxWait(Duration.ofMillis(300));
    try (WriterFence fence = fence(DB.dataSource()).retryPolicy(shortWait).build()) {
      WriterFenceBusyException busy =
          catchThrowableOfType(
              WriterFenceBusyException.class, () -> fence.run(request("late"), () -> {}));

      assertThat(busy.place()).isEqualTo(1);
      assertThat(busy.waiters()).isEqualTo(1);
      assertThat(busy.attempts()).isGreaterThan(1);
      assertThat(busy)
          .hasMessageContaining("number 1 of 1 in its queue")
          .hasMessageContaining("against a budget of 300ms")
          .hasMessageContaining("writer-fence.retry.max-wait")
          .hasMessageContaining("'" + shown("holder") + "'");
      assertThat(store.queue(name)).as("the ticket left with the caller").isEmpty();
    } finally {
      holderFence.release(held);
      holderFence.close();
    }
  }

  @Test
  void C28_aTryWhileOthersQueueIsBusyEvenWhenTheLeaseIsFree() throws Exception {
    WriterFence holderFence = fence();
    FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
    WriterFence waiter = fence(DB.dataSource()).retryPolicy(PATIENT).build();
    CountDownLatch inside = new CountDownLatch(1);
    CountDownLatch leave = new CountDownLatch(1);
    CompletableFuture<Void> call =
        CompletableFuture.runAsync(
            () -> {
              try {
                waiter.run(
                    request("waiter"),
                    () -> {
                      inside.countDown();
                      leave.await();
                    });
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    try (WriterFence other = fence()) {
      await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == 1);
      holderFence.release(held);
      // The release kept the lease for the queued waiter: a try cannot barge in before it.
      assertThat(OtherWriter.tryAcquire(other, request("barging"))).isEmpty();
      assertThat(inside.await(30, TimeUnit.SECONDS)).isTrue();
      assertThat(OtherWriter.tryAcquire(other, request("barging"))).isEmpty();
    } finally {
      leave.countDown();
    }
    call.get(60, TimeUnit.SECONDS);
    waiter.close();
    holderFence.close();
  }

  /**
   * Two fences, two threads each, every thread wanting the lease again as soon as it released it.
   * With the queue the fences alternate: a release keeps the lease for the other fence's ticket,
   * and a thread of the releasing fence queues behind it. Without the queue the releasing fence's
   * next thread would win at once (ADR 16) and the other fence would wait out whole runs. The same
   * with the heads woken by the release signal ({@code queueListen}).
   */
  @ParameterizedTest(name = "queueListen {0}")
  @ValueSource(booleans = {false, true})
  void twoFencesWithTwoThreadsEachAlternate(boolean listen) throws Exception {
    int sectionsEach = 10;
    CriticalSections record =
        new CriticalSections(DB.dataSource(), CriticalSections.freshTable("alternate")).create();
    try (HikariDataSource poolA = Pools.warmPool(DB.jdbcUrl(), "postgres", 3);
        HikariDataSource poolB = Pools.warmPool(DB.jdbcUrl(), "postgres", 3);
        WriterFence a = fence(poolA).retryPolicy(PATIENT).queueListen(listen).build();
        WriterFence b = fence(poolB).retryPolicy(PATIENT).queueListen(listen).build()) {
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<Void>> writers = new ArrayList<>();
      for (String who : List.of("a-1", "a-2", "b-1", "b-2")) {
        WriterFence fence = who.startsWith("a") ? a : b;
        writers.add(
            CompletableFuture.runAsync(
                () -> {
                  try (CriticalSections.Recorder recorder = record.recorder()) {
                    start.await();
                    for (int i = 0; i < sectionsEach; i++) {
                      fence.run(
                          request(who),
                          () -> {
                            long id =
                                recorder.enter(
                                    who, WriterFence.current(name).orElseThrow().fencingToken());
                            Thread.sleep(20); // a section long enough for the others to queue
                            recorder.exit(id);
                          });
                    }
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                runnable -> new Thread(runnable, who).start()));
      }
      start.countDown();
      CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
    }

    List<Section> sections = record.load();
    assertThat(sections).hasSize(4 * sectionsEach);
    assertThat(SectionChecker.check(sections).violations()).isEmpty();
    StringBuilder owners = new StringBuilder();
    sections.forEach(s -> owners.append(s.writer().charAt(0)));
    // Once both fences wait, every hand-over goes to the other fence: runs of one fence are only
    // allowed before the other's first section (it had not queued yet: on a loaded machine its
    // threads start late) and after the other's last one (it had finished). In between, two
    // repeats at most: a grant may race the other fence's ticket.
    String order = owners.toString();
    int from = Math.max(order.indexOf('a'), order.indexOf('b'));
    int to = Math.min(order.lastIndexOf('a'), order.lastIndexOf('b'));
    int repeats = 0;
    for (int i = from + 1; i <= to; i++) {
      if (order.charAt(i) == order.charAt(i - 1)) {
        repeats++;
      }
    }
    assertThat(to - from).as("both fences wrote in turn in %s", order).isGreaterThan(10);
    assertThat(repeats).as("hand-overs within one fence in %s", order).isLessThanOrEqualTo(2);
  }

  private List<QueuedWaiter> waiting() {
    return store.queue(name).stream().filter(QueuedWaiter::isWaiting).toList();
  }

  /** A label as this instance's rows and tickets show it. */
  private static String shown(String label) {
    return label + "@" + HolderLabel.instance();
  }

  private void callRecording(WriterFence fence, String who, List<String> wins) {
    try {
      fence.run(request(who), () -> wins.add(who));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
