package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.CountingListener;
import dev.writerfence.testing.LogCapture;
import dev.writerfence.testing.OtherWriter;
import dev.writerfence.testing.PgBouncerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The front of a queue is woken by the release's notification where notifications arrive, proved by
 * a probe when listening starts (ADR 65): directly, behind PgBouncer in transaction mode (where the
 * probe falls back to polling and says why once), and behind PgBouncer with {@code
 * queue.listen-url} on a direct connection. Polls are counted by the fence's listener ({@code
 * busyAttempt}: every poll that was not granted), never timed.
 */
class WokenByReleaseTest extends FenceTestSupport {
  /** Fewer server connections than clients: sessions are shared. */
  @RegisterExtension
  static final PgBouncerExtension BOUNCER = new PgBouncerExtension("transaction", 3);

  private static final BusyRetryPolicy PATIENT =
      BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(60));

  /** A long lapse: a notified head's safety-net poll comes a quarter of it apart, 15 s. */
  private static final Duration LAPSE = Duration.ofSeconds(60);

  private static final String FELL_BACK = "did not arrive within";

  private final PgLeaseStore store =
      new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));

  @Test
  void aWaiterOnADirectConnectionIsWokenByTheReleaseNotByAPoll() throws Exception {
    assertWokenByTheRelease(fence(DB.dataSource()));
  }

  @Test
  void behindPgBouncerWithAListenUrlOnADirectConnectionTheWaiterIsWoken() throws Exception {
    DataSource through = BOUNCER.get().dataSource();
    assertWokenByTheRelease(fence(through).queueListenUrl(DB.jdbcUrl(), "postgres", null));
  }

  @Test
  void behindPgBouncerTheProbeFallsBackToPollingSaysWhyOnceAndServesEveryWriterInOrder()
      throws Exception {
    DataSource through = BOUNCER.get().dataSource(); // one data source: one listener, one probe
    WriterFence holderFence = fence();
    List<String> wins = new CopyOnWriteArrayList<>();
    List<WriterFence> fences = new ArrayList<>();
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    try (LogCapture log = LogCapture.start()) {
      FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
      try {
        for (int i = 1; i <= 3; i++) {
          String who = "waiter-" + i;
          WriterFence fence = fence(through).retryPolicy(PATIENT).queueLapse(LAPSE).build();
          fences.add(fence);
          calls.add(
              CompletableFuture.runAsync(
                  () -> fence.run(request(who), () -> wins.add(who)),
                  runnable -> new Thread(runnable, who).start()));
          int queued = i;
          await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == queued);
        }
        // The head's first wait starts the listener; its probe gets no answer through the pooler.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> "polled".equals(fences.get(0).queueWakeUp()));
      } finally {
        holderFence.release(held);
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      assertThat(wins).containsExactly("waiter-1", "waiter-2", "waiter-3");
      assertThat(fences).allSatisfy(f -> assertThat(f.queueWakeUp()).isEqualTo("polled"));
      assertThat(occurrences(log.text(), FELL_BACK)).as("the fallback is told once").isEqualTo(1);
      assertThat(log.text()).contains("queue.listen-url").contains("mode polled");
    } finally {
      fences.forEach(WriterFence::close);
      holderFence.close();
    }
  }

  @Test
  void aWaiterBehindTheFrontIsListeningBeforeItGetsThere() throws Exception {
    WriterFence holderFence = fence();
    List<WriterFence> fences = new ArrayList<>();
    List<CompletableFuture<Void>> calls = new ArrayList<>();
    try {
      FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
      try {
        for (int i = 1; i <= 3; i++) {
          String who = "waiter-" + i;
          // A data source of its own each: one listener each, started by that writer's wait.
          WriterFence fence = fence(DB.dataSource()).retryPolicy(PATIENT).queueLapse(LAPSE).build();
          fences.add(fence);
          calls.add(
              CompletableFuture.runAsync(
                  () -> fence.run(request(who), () -> {}),
                  runnable -> new Thread(runnable, who).start()));
          int queued = i;
          await().atMost(Duration.ofSeconds(30)).until(() -> waiting().size() == queued);
        }
        // Number 3 is not at the front (places 1 and 2 wait for the signal), yet it listens.
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> "notified".equals(fences.get(2).queueWakeUp()));
        assertThat(waiting())
            .filteredOn(w -> w.holderLabel().startsWith("waiter-3"))
            .singleElement()
            .satisfies(w -> assertThat(w.place()).isEqualTo(3));
      } finally {
        holderFence.release(held);
      }
      CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    } finally {
      fences.forEach(WriterFence::close);
      holderFence.close();
    }
  }

  /**
   * A waiter queues behind a holder; once its listener has proved notifications, it sends no poll
   * while the holder holds, and the release's notification wakes it to the poll that is granted.
   */
  private void assertWokenByTheRelease(WriterFence.Builder waiterFence) throws Exception {
    WriterFence holderFence = fence();
    CountingListener counted = new CountingListener();
    try (WriterFence waiter =
        waiterFence.retryPolicy(PATIENT).queueLapse(LAPSE).listener(counted).build()) {
      FenceLease held = OtherWriter.acquire(holderFence, request("holder"));
      CompletableFuture<Void> call;
      int before;
      try {
        call =
            CompletableFuture.runAsync(
                () -> waiter.run(request("waiter"), () -> {}),
                runnable -> new Thread(runnable, "waiter").start());
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> waiting().size() == 1 && "notified".equals(waiter.queueWakeUp()));
        Thread.sleep(300); // lets a poll sent before the probe answered come back
        before = counted.busyAttempts();
        Thread.sleep(300); // a waiter polling on a schedule would poll here
        assertThat(counted.busyAttempts()).as("polls while the holder holds").isEqualTo(before);
      } finally {
        holderFence.release(held);
      }
      call.get(60, TimeUnit.SECONDS);

      assertThat(counted.acquired()).isEqualTo(1);
      assertThat(counted.busyAttempts())
          .as("no poll but the one the release woke, which was granted")
          .isEqualTo(before);
    } finally {
      holderFence.close();
    }
  }

  private List<QueuedWaiter> waiting() {
    return store.queue(name).stream().filter(QueuedWaiter::isWaiting).toList();
  }

  private static int occurrences(String text, String part) {
    Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
