package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.store.lease.QueuedWriterProcess;
import dev.writerfence.testing.ForkedJvm;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * A dead head of the queue is passed over within its head lapse, not its ticket's whole lapse
 * (contract version 5, ADR 68): the head is a writer process of its own, killed with SIGKILL or
 * paused with SIGSTOP while it waits; the next writer is a {@link WriterFence} of this JVM with its
 * default pacing. Every time compared is the database's: the next grant comes before the dead
 * head's ticket would have lapsed, while the paused one is still paused. A paused head that goes on
 * queues again at the back and never holds the lease while another writer does.
 */
class DeadHeadTest extends FenceTestSupport {
  /** Far longer than a head lapse: a grant before it lapses was not the lapse's doing. */
  private static final String LAPSE_SECONDS = "20";

  private static final String HEAD_LAPSE_MILLIS = "500";
  private static final Duration EXPECT = Duration.ofSeconds(60);
  private static final Duration HOLD = Duration.ofMinutes(10);
  private static final BusyRetryPolicy PATIENT =
      BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(60));

  private final PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, TTL);

  @Test
  void aHeadKilledWithSigkillIsPassedOverLongBeforeItsTicketLapses() throws Exception {
    try (ForkedJvm head = waiter("dead-head");
        WriterFence next = fence(DB.dataSource()).retryPolicy(PATIENT).build()) {
      StoreLease holder = holds();
      head.send("wait");
      assertThat(head.awaitLine("queued ", EXPECT)).isEqualTo("queued 1");
      CompletableFuture<Instant> won = grantedAt(next, "next", new CountDownLatch(0));
      await().atMost(EXPECT).until(() -> labels().equals(List.of("dead-head", "next")));

      head.process().destroyForcibly();
      head.awaitExit(EXPECT);
      Instant headLapses = ticket("dead-head").lapsesAt();
      assertThat(holder.release()).isTrue();

      assertThat(won.get(EXPECT.toSeconds(), TimeUnit.SECONDS))
          .as("granted before the dead head's ticket lapsed, by the database clock")
          .isBefore(headLapses);
    }
    assertThat(store.queue(name)).as("no ticket is left as a row").isEmpty();
  }

  @Test
  void aHeadPausedWithSigstopIsPassedOverAndQueuesAgainAtTheBackWhenItGoesOn() throws Exception {
    CountDownLatch letGo = new CountDownLatch(1);
    try (ForkedJvm head = waiter("paused-head");
        ForkedJvm third = waiter("third");
        WriterFence next = fence(DB.dataSource()).retryPolicy(PATIENT).build()) {
      StoreLease holder = holds();
      head.send("wait");
      assertThat(head.awaitLine("queued ", EXPECT)).isEqualTo("queued 1");
      CompletableFuture<Instant> won = grantedAt(next, "next", letGo);
      await().atMost(EXPECT).until(() -> labels().equals(List.of("paused-head", "next")));

      signal("STOP", head);
      // Its last poll may still have been under way: the ticket is as the pause left it.
      Thread.sleep(200);
      Instant headLapses = ticket("paused-head").lapsesAt();
      assertThat(holder.release()).isTrue();

      assertThat(within(won, head, third))
          .as("granted while the head is paused, before its ticket would have lapsed")
          .isBefore(headLapses);
      assertThat(head.process().isAlive()).as("still paused, not dead").isTrue();
      assertThat(labels()).as("the paused head lost its place").isEmpty();
      third.send("wait");
      assertThat(third.awaitLine("queued ", EXPECT)).isEqualTo("queued 1");

      signal("CONT", head);
      await().atMost(EXPECT).until(() -> labels().equals(List.of("third", "paused-head")));
      assertThat(head.output()).as("no barging in").noneMatch(l -> l.startsWith("won "));

      letGo.countDown(); // "next" releases
      long thirdToken = Long.parseLong(third.awaitLine("won ", EXPECT).split(" ")[1]);
      assertThat(head.output())
          .as("it waits behind the third")
          .noneMatch(l -> l.startsWith("won "));
      third.send("release");
      assertThat(third.awaitLine("released ", EXPECT)).isEqualTo("released true");
      long headToken = Long.parseLong(head.awaitLine("won ", EXPECT).split(" ")[1]);
      assertThat(headToken).isGreaterThan(thirdToken);
      head.send("release");
      assertThat(head.awaitLine("released ", EXPECT)).isEqualTo("released true");
    } finally {
      letGo.countDown();
    }
    assertThat(store.queue(name)).as("no ticket is left as a row").isEmpty();
  }

  /** The next writer's grant time; failing, what the processes and the queue said. */
  private Instant within(CompletableFuture<Instant> won, ForkedJvm... others) throws Exception {
    try {
      return won.get(EXPECT.toSeconds(), TimeUnit.SECONDS);
    } catch (TimeoutException e) {
      StringBuilder said = new StringBuilder("not granted; queue ").append(store.queue(name));
      said.append(", lease ").append(store.status(name));
      for (ForkedJvm other : others) {
        said.append(", ").append(other).append(" said ").append(other.output());
      }
      throw new AssertionError(said.toString(), e);
    }
  }

  /** The holder the queue forms behind: its lease outlasts any slow start of a process. */
  private StoreLease holds() {
    return store.acquire(name, UUID.randomUUID(), "holder", HOLD).orElseThrow();
  }

  /**
   * The next writer: its guarded code reports the grant's time (the future completes then), and
   * holds on until {@code letGo}.
   */
  private CompletableFuture<Instant> grantedAt(
      WriterFence fence, String label, CountDownLatch letGo) {
    CompletableFuture<Instant> granted = new CompletableFuture<>();
    Thread writer =
        new Thread(
            () -> {
              try {
                fence.run(
                    request(label),
                    () -> {
                      granted.complete(fence.status(name).orElseThrow().acquiredAt());
                      letGo.await();
                    });
              } catch (Throwable e) {
                granted.completeExceptionally(e);
              }
            },
            label);
    writer.start();
    return granted;
  }

  /** The live tickets' labels, head first, without the instance a fence adds ("next@vm:…"). */
  private List<String> labels() {
    return store.queue(name).stream()
        .filter(QueuedWaiter::isWaiting)
        .map(w -> w.holderLabel().replaceFirst("@.*", ""))
        .toList();
  }

  private QueuedWaiter ticket(String label) {
    return store.queue(name).stream()
        .filter(w -> label.equals(w.holderLabel()))
        .findFirst()
        .orElseThrow();
  }

  private ForkedJvm waiter(String label) {
    ForkedJvm jvm =
        ForkedJvm.start(
            QueuedWriterProcess.class,
            DB.jdbcUrl(),
            SCHEMA,
            name,
            label,
            "0",
            LAPSE_SECONDS,
            HEAD_LAPSE_MILLIS);
    jvm.awaitLine("ready", EXPECT);
    return jvm;
  }

  private static void signal(String signal, ForkedJvm jvm)
      throws IOException, InterruptedException {
    Process kill =
        new ProcessBuilder("kill", "-" + signal, Long.toString(jvm.pid())).inheritIO().start();
    assertThat(kill.waitFor()).as("kill -%s %s", signal, jvm.pid()).isZero();
  }
}
