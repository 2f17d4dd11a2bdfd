package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.testing.CountingListener;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.Pools;
import dev.writerfence.testing.RecordingLeaseStore;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Threads of one fence contending for one fence name take turns in the process (ADR 16): only the
 * thread holding the turn asks the database, and a release hands the turn straight to the longest
 * waiter, whose first attempt then wins.
 */
class InProcessTurnsTest extends FenceTestSupport {
  private static final int THREADS = 8;
  private static final int SECTIONS_EACH = 5;

  /** Long enough that no thread of {@link #THREADS} ever gives up while the others take turns. */
  private static final BusyRetryPolicy PATIENT =
      new BusyRetryPolicy(4, Duration.ofSeconds(5), 2.0, Duration.ofSeconds(20), 0.0);

  @Test
  void threadsOfOneFenceTakeTurnsWithoutABusyAnswerFromTheDatabase() throws Exception {
    String table = "sections_" + UUID.randomUUID().toString().replace("-", "");
    CriticalSections record = new CriticalSections(DB.dataSource(), table).create();
    CountingListener listener = new CountingListener();
    try (HikariDataSource pool = Pools.warmPool(DB.jdbcUrl(), "postgres", THREADS);
        WriterFence fence = fence(pool).listener(listener).retryPolicy(PATIENT).build()) {
      CountDownLatch start = new CountDownLatch(1);
      List<CompletableFuture<Void>> writers = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        String who = "writer-" + t;
        writers.add(
            CompletableFuture.runAsync(
                () -> {
                  try (CriticalSections.Recorder recorder = record.recorder()) {
                    start.await();
                    for (int i = 0; i < SECTIONS_EACH; i++) {
                      fence.call(
                          request(who),
                          () -> {
                            long token = WriterFence.current(name).orElseThrow().fencingToken();
                            recorder.section(who, token);
                            return null;
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

      List<Section> sections = record.load();
      assertThat(sections).hasSize(THREADS * SECTIONS_EACH);
      assertThat(SectionChecker.check(sections).violations()).isEmpty();
      Map<String, Long> perWriter =
          sections.stream().collect(Collectors.groupingBy(Section::writer, Collectors.counting()));
      assertThat(perWriter).hasSize(THREADS).allSatisfy((w, n) -> assertThat(n).isEqualTo(5L));
      assertThat(listener.acquired()).isEqualTo(THREADS * SECTIONS_EACH);
      assertThat(listener.busyAttempts())
          .as("each thread asked the database only once the turn was its, and won at once")
          .isZero();
      assertThat(listener.attemptsOfLastAcquire()).isEqualTo(1);
    }
  }

  @Test
  void aThreadThatWaitedThroughTheScheduleIsBusyWithoutAskingTheDatabase() throws Exception {
    RecordingStoreFence recorded = new RecordingStoreFence();
    try (WriterFence fence = recorded.fence) {
      FenceLease held = acquireOnAnotherThread(fence, request("holder"));
      int statementsBefore = recorded.store.acquireTokens().size();

      AtomicBoolean ran = new AtomicBoolean();
      assertThatThrownBy(() -> fence.run(request("second"), () -> ran.set(true)))
          .isInstanceOfSatisfying(
              WriterFenceBusyException.class,
              e -> {
                assertThat(e.attempts()).isZero();
                assertThat(e.holderLabel()).contains("holder@" + HolderLabel.instance());
                assertThat(e.getMessage())
                    .contains(
                        "'"
                            + name
                            + "' is busy: its turn in this process stayed with another acquire of the same fence")
                    .contains("held by 'holder@" + HolderLabel.instance() + "'");
              });
      assertThat(ran).isFalse();
      assertThat(recorded.store.acquireTokens().size()).isEqualTo(statementsBefore);
      assertThat(recorded.listener.busy()).isEqualTo(1);
      fence.release(held);

      fence.run(request("third"), () -> ran.set(true));
      assertThat(ran).as("the turn came back with the release").isTrue();
    }
  }

  @Test
  void tryAcquireAnswersBusyAtOnceWhileAnotherThreadOfTheFenceHoldsTheName() throws Exception {
    RecordingStoreFence recorded = new RecordingStoreFence();
    try (WriterFence fence = recorded.fence) {
      FenceLease held =
          fence.tryAcquire(FenceRequest.builder(name).holderLabel("holder").build()).orElseThrow();
      int statementsBefore = recorded.store.acquireTokens().size();

      CompletableFuture<Boolean> other =
          CompletableFuture.supplyAsync(
              () ->
                  fence
                      .tryAcquire(FenceRequest.builder(name).holderLabel("other").build())
                      .isPresent());

      assertThat(other.get(30, TimeUnit.SECONDS)).isFalse();
      assertThat(recorded.store.acquireTokens().size()).isEqualTo(statementsBefore);
      fence.release(held);
      assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("other").build()))
          .isPresent();
    }
  }

  @Test
  void aLeaseReleasedWhenItsStageCompletesGivesTheTurnBackOnThatThread() throws Exception {
    try (WriterFence fence = fence()) {
      CompletableFuture<String> work = new CompletableFuture<>();
      CompletableFuture<String> fenced = fence.callAsync(request("async"), () -> work);

      assertThatThrownBy(() -> fence.run(request("second"), () -> {}))
          .isInstanceOf(WriterFenceBusyException.class);
      Thread completer = new Thread(() -> work.complete("done"));
      completer.start();
      completer.join();
      assertThat(fenced.get(30, TimeUnit.SECONDS)).isEqualTo("done");

      AtomicBoolean ran = new AtomicBoolean();
      fence.run(request("second"), () -> ran.set(true));
      assertThat(ran).isTrue();
    }
  }

  @Test
  void anInterruptWhileWaitingForTheTurnEndsTheWaitWithNoLease() throws Exception {
    try (WriterFence fence = fence(DB.dataSource()).retryPolicy(PATIENT).build()) {
      FenceLease held = fence.acquire(request("holder"));
      CompletableFuture<Throwable> waited = new CompletableFuture<>();
      Thread waiter =
          new Thread(
              () -> {
                try {
                  fence.run(request("waiter"), () -> {});
                  waited.complete(null);
                } catch (Throwable t) {
                  waited.complete(
                      Thread.currentThread().isInterrupted() ? t : new AssertionError("flag", t));
                }
              });
      waiter.start();
      LocalTurnsTest.awaitTimedWaiting(waiter);
      waiter.interrupt();

      assertThat(waited.get(30, TimeUnit.SECONDS))
          .isInstanceOf(WriterFenceInterruptedException.class)
          .hasMessageContaining("waiting for another writer of this process to release it");
      assertThat(status(fence).holderLabel()).isEqualTo("holder@" + HolderLabel.instance());
      fence.release(held);
    }
  }

  @Test
  void anInterruptedThreadStillMakesItsAttemptWhenTheTurnIsFree() throws Exception {
    try (WriterFence fence = fence()) {
      Thread.currentThread().interrupt();
      try {
        AtomicBoolean ran = new AtomicBoolean();
        fence.run(request("interrupted"), () -> ran.set(true));
        assertThat(ran).isTrue();
        assertThat(Thread.currentThread().isInterrupted()).as("the flag is kept").isTrue();
      } finally {
        Thread.interrupted();
      }
    }
  }

  @Test
  void anInterruptedThreadIsNotMadeToWaitForATakenTurn() throws Exception {
    try (WriterFence fence = fence(DB.dataSource()).retryPolicy(PATIENT).build()) {
      FenceLease held = acquireOnAnotherThread(fence, request("holder"));
      Thread.currentThread().interrupt();
      try {
        assertThatThrownBy(() -> fence.run(request("interrupted"), () -> {}))
            .isInstanceOf(WriterFenceInterruptedException.class);
        assertThat(Thread.currentThread().isInterrupted()).isTrue();
      } finally {
        Thread.interrupted();
        fence.release(held);
      }
    }
  }

  @Test
  void aThreadWaitingForItsTurnWhenTheFenceClosesSendsNoStatement() throws Exception {
    RecordingLeaseStore store = recordingStore();
    WriterFence fence = WriterFence.builder(store).retryPolicy(PATIENT).defaultTtl(TTL).build();
    fence.acquire(request("holder"));
    CompletableFuture<Throwable> waited = new CompletableFuture<>();
    Thread waiter =
        new Thread(
            () -> {
              try {
                fence.run(request("waiter"), () -> {});
                waited.complete(null);
              } catch (Throwable t) {
                waited.complete(t);
              }
            });
    waiter.start();
    LocalTurnsTest.awaitTimedWaiting(waiter);
    int statementsBefore = store.acquireTokens().size();

    fence.close(); // releases the holder's lease, which hands the turn on

    assertThat(waited.get(30, TimeUnit.SECONDS))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("closed");
    assertThat(store.acquireTokens()).hasSize(statementsBefore);
  }

  @Test
  void theShutdownReleaseFreesTheRowButKeepsTheTurn() throws Exception {
    try (WriterFence fence = fence()) {
      FenceLease held = fence.acquire(request("holder"));

      HeldLease.of(held).releaseBefore(System.nanoTime() + TimeUnit.SECONDS.toNanos(10));

      assertThat(status(fence).state()).isEqualTo("free");
      assertThat(
              CompletableFuture.supplyAsync(
                      () ->
                          fence.tryAcquire(FenceRequest.builder(name).holderLabel("late").build()))
                  .get(30, TimeUnit.SECONDS))
          .as("no thread of the halting process takes the freed row")
          .isEmpty();
    }
  }

  /** A fence over a store that counts its acquire statements, with a listener. */
  private final class RecordingStoreFence {
    final RecordingLeaseStore store = recordingStore();
    final CountingListener listener = new CountingListener();
    final WriterFence fence =
        WriterFence.builder(store)
            .retryPolicy(QUICK_RETRY)
            .defaultTtl(TTL)
            .listener(listener)
            .build();
  }

  /** A holder in the same fence that is not this thread: a hold of this thread would be joined. */
  private static FenceLease acquireOnAnotherThread(WriterFence fence, FenceRequest request)
      throws Exception {
    return CompletableFuture.supplyAsync(() -> fence.acquire(request)).get();
  }
}
