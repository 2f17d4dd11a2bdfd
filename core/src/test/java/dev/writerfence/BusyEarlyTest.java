package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.CountingListener;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.OtherWriter;
import dev.writerfence.testing.RecordingLeaseStore;
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

/**
 * {@code queue.busy-early} (ADR 66) against the real queue: a writer too far back to be served
 * within its budget at the pace the queue moves gives up at its first poll that knows the pace,
 * leaving the queue; with the setting off it waits out its budget; writers that can be served are
 * all served. Each {@code WriterFence} here is one waiter, as a process is for the database. The
 * sections take real time (the queue's pace), but only outcomes are asserted.
 */
class BusyEarlyTest extends FenceTestSupport {
  /** Writers queued ahead of the tail, each holding the fence about {@link #HOLD}. */
  private static final int AHEAD = 12;

  private static final long HOLD = 1000;

  /** The ones ahead never give up while the queue works through them. */
  private static final BusyRetryPolicy PATIENT =
      BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(120));

  private final PgLeaseStore store =
      new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));

  @Test
  void aTailThatCannotBeServedInItsBudgetGivesUpAtItsFirstInformedPoll() throws Exception {
    CriticalSections record =
        new CriticalSections(DB.dataSource(), CriticalSections.freshTable("busy_early")).create();
    RecordingLeaseStore tailStore = recordingStore();
    CountingListener heard = new CountingListener();
    List<CompletableFuture<Void>> ahead = queueAhead(record);
    try (WriterFence tail = tail(tailStore, 3).listener(heard).build()) {
      WriterFenceBusyException busy =
          catchThrowableOfType(
              WriterFenceBusyException.class, () -> tail.run(request("tail"), () -> {}));

      assertThat(busy).as("busy before its budget ended").isNotNull();
      assertThat(busy.expectedWait()).isPresent();
      assertThat(busy.place()).isGreaterThan(1);
      assertThat(busy)
          .hasMessageContaining("gave up early")
          .hasMessageContaining(
              "number "
                  + busy.place()
                  + " of "
                  + busy.waiters()
                  + " in the queue of '"
                  + name
                  + "'")
          .hasMessageContaining("at the current pace, budget 3 s")
          .hasMessageContaining("writer-fence.queue.busy-early=false");
      // Its first poll did not know the pace (nobody had moved yet); it gave up at a poll that
      // did: one whose place was nearer the front than its first. Which one depends on how the
      // first hand-overs fell against its first poll (one short turn measured at first makes the
      // estimate too short to give up on), so only that it was an informed poll is asserted.
      List<Integer> places = tailStore.pollPlaces();
      int first = places.get(0);
      assertThat(places.get(places.size() - 1)).isLessThan(first);
      assertThat(busy.place()).isEqualTo(places.get(places.size() - 1));
      assertThat(heard.busy()).as("counted as a busy answer").isEqualTo(1);
      assertThat(store.queue(name))
          .as("its ticket left with it")
          .extracting(QueuedWaiter::holderLabel)
          .doesNotContain(shown("tail"));
    }
    servedWithoutOverlap(ahead, record, AHEAD);
  }

  @Test
  void withBusyEarlyOffTheTailWaitsOutItsBudget() throws Exception {
    CriticalSections record =
        new CriticalSections(DB.dataSource(), CriticalSections.freshTable("busy_late")).create();
    RecordingLeaseStore tailStore = recordingStore();
    List<CompletableFuture<Void>> ahead = queueAhead(record);
    try (WriterFence tail = tail(tailStore, 5).queueBusyEarly(false).build()) {
      WriterFenceBusyException busy =
          catchThrowableOfType(
              WriterFenceBusyException.class, () -> tail.run(request("tail"), () -> {}));

      assertThat(busy.expectedWait()).isEmpty();
      assertThat(busy)
          .hasMessageNotContaining("gave up early")
          .hasMessageContaining("against a budget of 5.0s");
      // It was still queued, and polled again, after a poll that saw the queue move.
      List<Integer> places = tailStore.pollPlaces();
      int first = places.get(0);
      int informed = -1;
      for (int i = 0; i < places.size() && informed < 0; i++) {
        if (places.get(i) < first) {
          informed = i;
        }
      }
      assertThat(informed).as("a poll saw the queue move in %s", places).isNotNegative();
      assertThat(places.size() - 1).as("polls after it in %s", places).isGreaterThan(informed);
      assertThat(store.queue(name))
          .extracting(QueuedWaiter::holderLabel)
          .doesNotContain(shown("tail"));
    }
    servedWithoutOverlap(ahead, record, AHEAD);
  }

  @Test
  void writersWhosePlaceCanBeReachedAreAllServed() throws Exception {
    int fences = 8;
    int threadsEach = 2;
    int sectionsEach = 3;
    CriticalSections record =
        new CriticalSections(DB.dataSource(), CriticalSections.freshTable("busy_served")).create();
    List<WriterFence> opened = new ArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Void>> writers = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    try {
      for (int f = 0; f < fences; f++) {
        WriterFence fence =
            fence(DB.dataSource())
                .retryPolicy(BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(60)))
                .queueBusyEarly(true)
                .build();
        opened.add(fence);
        for (int t = 0; t < threadsEach; t++) {
          String who = "w" + f + "-" + t;
          writers.add(
              CompletableFuture.runAsync(
                  () -> {
                    try (CriticalSections.Recorder recorder = record.recorder()) {
                      start.await();
                      for (int i = 0; i < sectionsEach; i++) {
                        fence.run(request(who), () -> section(recorder, who, 100));
                      }
                    } catch (Exception | AssertionError e) {
                      failures.add(e);
                    }
                  },
                  runnable -> new Thread(runnable, who).start()));
        }
      }
      start.countDown();
      CompletableFuture.allOf(writers.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
    } finally {
      opened.forEach(WriterFence::close);
    }

    assertThat(failures).as("no writer refused busy, early or not").isEmpty();
    List<Section> sections = record.load();
    assertThat(sections).hasSize(fences * threadsEach * sectionsEach);
    assertThat(SectionChecker.check(sections).violations()).isEmpty();
  }

  /**
   * A holder takes the lease, {@link #AHEAD} writers queue behind it one by one, each to hold it
   * {@link #HOLD} ms, then the holder releases: the queue moves one place a second from now on.
   */
  private List<CompletableFuture<Void>> queueAhead(CriticalSections record) {
    WriterFence holderFence = fence();
    FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    try {
      for (int i = 1; i <= AHEAD; i++) {
        String who = "ahead-" + i;
        calls.add(
            CompletableFuture.runAsync(
                () -> {
                  try (WriterFence fence = fence(DB.dataSource()).retryPolicy(PATIENT).build();
                      CriticalSections.Recorder recorder = record.recorder()) {
                    fence.run(request(who), () -> section(recorder, who, HOLD));
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                runnable -> new Thread(runnable, who).start()));
        int queued = i;
        await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == queued);
      }
    } finally {
      holderFence.release(held);
      holderFence.close();
    }
    return calls;
  }

  /** The tail's fence: one waiter of its own, with a budget of {@code seconds}. */
  private static WriterFence.Builder tail(RecordingLeaseStore tailStore, int seconds) {
    return WriterFence.builder(tailStore)
        .retryPolicy(BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(seconds)))
        .queueBusyEarly(true)
        .defaultTtl(TTL);
  }

  private static void servedWithoutOverlap(
      List<CompletableFuture<Void>> calls, CriticalSections record, int writers) throws Exception {
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(3, TimeUnit.MINUTES);
    List<Section> sections = record.load();
    assertThat(sections).as("every writer ahead was served").hasSize(writers);
    assertThat(SectionChecker.check(sections).violations()).isEmpty();
  }

  private void section(CriticalSections.Recorder recorder, String who, long millis)
      throws Exception {
    long id = recorder.enter(who, WriterFence.current(name).orElseThrow().fencingToken());
    Thread.sleep(millis); // real work takes time: the queue's pace
    recorder.exit(id);
  }

  private List<QueuedWaiter> waiting() {
    return store.queue(name).stream().filter(QueuedWaiter::isWaiting).toList();
  }

  /** A label as this instance's rows and tickets show it. */
  private static String shown(String label) {
    return label + "@" + HolderLabel.instance();
  }
}
