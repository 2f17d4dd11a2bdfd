package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * {@link FenceLease#onLost} and the body overloads that hand the body its lease, against the real
 * database: leases are lost the real way, by taking their row over in SQL so that the next renewal
 * finds another holder.
 */
class LossNoticeTest extends FenceTestSupport {

  /** Renewal every 200 ms: a row taken over is found within about that. */
  private static WriterFence quickRenewal() {
    return fence(DB.dataSource()).renewInterval(Duration.ofMillis(200)).build();
  }

  /** Another holder takes over every row whose fence name starts with {@code prefix}. */
  private static void takeOver(String prefix) {
    DB.execute(
        "UPDATE "
            + SCHEMA
            + ".lease SET holder_token = gen_random_uuid() WHERE fence_name LIKE '"
            + prefix
            + "%'");
  }

  /** Records each call of its callback: the exception and the thread. */
  static final class Calls {
    final List<FenceLostException> lost = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();

    void accept(FenceLostException e) {
      lost.add(e);
      threads.add(Thread.currentThread().getName());
    }
  }

  @Test
  void onLostRunsOnceOnLossOffTheTimerAndAtOnceWhenRegisteredLate() throws Exception {
    WriterFence fence = quickRenewal();
    try {
      FenceLease lease = fence.tryAcquire(request("lost")).orElseThrow();
      Calls calls = new Calls();
      lease.onLost(calls::accept);

      takeOver(name);

      await().atMost(Duration.ofSeconds(10)).until(() -> calls.lost.size() == 1);
      FenceLostException told = calls.lost.get(0);
      assertThat(told.fenceName()).isEqualTo(name);
      assertThat(told.fencingToken()).isEqualTo(lease.fencingToken());
      assertThat(told.reason()).contains("taken over");
      // On a thread of the renewal pool; the timer thread has the same name, and a slow callback
      // there is what aSlowCallbackLeavesTheOtherLeasesRenewed rules out.
      assertThat(calls.threads).containsExactly("writer-fence-renewal");

      Calls late = new Calls();
      FenceLease.Registration registration = lease.onLost(late::accept);
      assertThat(late.lost).as("registered after the loss: run before onLost returns").hasSize(1);
      assertThat(late.threads).containsExactly(Thread.currentThread().getName());
      assertThat(registration.cancel()).as("a callback that ran cannot be cancelled").isFalse();

      fence.release(lease);
      await()
          .during(Duration.ofMillis(800))
          .atMost(Duration.ofSeconds(3))
          .until(() -> calls.lost.size() == 1 && late.lost.size() == 1);
    } finally {
      fence.close();
    }
  }

  @Test
  void onLostNeverRunsForAReleasedLeaseAndACancelledCallbackNeverRuns() throws Exception {
    WriterFence fence = quickRenewal();
    try {
      FenceLease released = fence.tryAcquire(request("released")).orElseThrow();
      Calls onRelease = new Calls();
      FenceLease.Registration r = released.onLost(onRelease::accept);
      assertThat(fence.release(released)).isTrue();
      assertThat(r.cancel()).as("dropped with the release").isFalse();
      Calls afterRelease = new Calls();
      released.onLost(afterRelease::accept);

      FenceRequest other = FenceRequest.builder(name + "-cancelled").holderLabel("c").build();
      FenceLease cancelledLease = fence.tryAcquire(other).orElseThrow();
      Calls cancelled = new Calls();
      Calls kept = new Calls();
      FenceLease.Registration toCancel = cancelledLease.onLost(cancelled::accept);
      cancelledLease.onLost(kept::accept);
      assertThat(toCancel.cancel()).isTrue();
      assertThat(toCancel.cancel()).as("idempotent").isFalse();

      takeOver(name);
      await().atMost(Duration.ofSeconds(10)).until(() -> kept.lost.size() == 1);
      await()
          .during(Duration.ofMillis(800))
          .atMost(Duration.ofSeconds(3))
          .until(
              () ->
                  onRelease.lost.isEmpty()
                      && afterRelease.lost.isEmpty()
                      && cancelled.lost.isEmpty()
                      && kept.lost.size() == 1);
      fence.release(cancelledLease);
    } finally {
      fence.close();
    }
  }

  @Test
  void manyLeasesLostAtOnceOnManyThreadsEachTellTheirCallbackOnce() throws Exception {
    int holders = 12;
    WriterFence fence = quickRenewal();
    Map<String, AtomicInteger> told = new ConcurrentHashMap<>();
    Map<String, String> toldThread = new ConcurrentHashMap<>();
    CountDownLatch allHold = new CountDownLatch(holders);
    ExecutorService threads = Executors.newFixedThreadPool(holders);
    try {
      List<Future<Long>> calls = new ArrayList<>();
      for (int i = 0; i < holders; i++) {
        String fenceName = name + "-" + i;
        told.put(fenceName, new AtomicInteger());
        calls.add(
            threads.submit(
                () ->
                    fence.callWithLease(
                        FenceRequest.builder(fenceName).holderLabel("many").build(),
                        lease -> {
                          CountDownLatch mine = new CountDownLatch(1);
                          lease.onLost(
                              lost -> {
                                told.get(lost.fenceName()).incrementAndGet();
                                toldThread.put(lost.fenceName(), Thread.currentThread().getName());
                                mine.countDown();
                              });
                          allHold.countDown();
                          // No opt-in to be interrupted: the body waits for its own notice.
                          assertThat(mine.await(20, TimeUnit.SECONDS)).as(fenceName).isTrue();
                          assertThat(lease.isValid()).isFalse();
                          return lease.fencingToken();
                        })));
      }
      assertThat(allHold.await(20, TimeUnit.SECONDS)).isTrue();

      takeOver(name + "-"); // one statement: every lease is lost at about the same moment

      for (Future<Long> call : calls) {
        assertThat(call.get(30, TimeUnit.SECONDS)).isPositive();
      }
      await()
          .during(Duration.ofMillis(800))
          .atMost(Duration.ofSeconds(3))
          .until(() -> told.values().stream().allMatch(n -> n.get() == 1));
      assertThat(toldThread).hasSize(holders).allSatisfy((k, v) -> assertThat(v).isNotEmpty());
    } finally {
      threads.shutdownNow();
      fence.close();
    }
  }

  @Test
  void aSlowCallbackLeavesTheOtherLeasesRenewed() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch letGo = new CountDownLatch(1);
    WriterFence fence =
        fence(DB.dataSource())
            .defaultTtl(Duration.ofSeconds(3))
            .renewInterval(Duration.ofMillis(500))
            .build();
    FenceLease a =
        fence.tryAcquire(FenceRequest.builder(name + "-a").holderLabel("a").build()).orElseThrow();
    FenceLease b =
        fence.tryAcquire(FenceRequest.builder(name + "-b").holderLabel("b").build()).orElseThrow();
    try {
      a.onLost(
          lost -> {
            entered.countDown();
            try {
              letGo.await(10, TimeUnit.SECONDS); // a callback stuck on I/O
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          });
      takeOver(name + "-a");
      assertThat(entered.await(5, TimeUnit.SECONDS)).as("a was found lost").isTrue();

      await()
          .during(Duration.ofSeconds(4))
          .atMost(Duration.ofSeconds(6))
          .until(() -> b.isValid() && fence.status(b.fenceName()).orElseThrow().isHeld());
    } finally {
      letGo.countDown();
      fence.close();
    }
  }

  @Test
  void aCallbackThatThrowsIsIgnoredAndTheNextOneStillRuns() throws Exception {
    WriterFence fence = quickRenewal();
    try {
      FenceLease lease = fence.tryAcquire(request("throws")).orElseThrow();
      Calls after = new Calls();
      lease.onLost(
          lost -> {
            throw new IllegalStateException("callback failed");
          });
      lease.onLost(after::accept);
      takeOver(name);
      await().atMost(Duration.ofSeconds(10)).until(() -> after.lost.size() == 1);
      fence.release(lease);
    } finally {
      fence.close();
    }
  }

  @Test
  void theBodyOverloadsHandTheBodyItsLeaseAndAJoinedCallTheOuterOne() throws Exception {
    WriterFence fence = fence();
    AtomicReference<FenceLease> inner = new AtomicReference<>();
    long token =
        fence.callWithLease(
            request("outer"),
            lease -> {
              assertThat(lease).isSameAs(WriterFence.current(name).orElseThrow());
              fence.runWithLease(request("inner"), inner::set);
              return lease.fencingToken();
            });
    assertThat(inner.get().fencingToken()).as("the joined hold's lease").isEqualTo(token);
    assertThat(sql.fencingToken(name)).as("one acquire").isEqualTo(token);
    assertThat(sql.state(name)).isEqualTo("free");

    // A checked exception of the body's own passes as it is (E inferred).
    assertThatThrownBy(
            () ->
                fence.runWithLease(
                    request("io"),
                    lease -> {
                      throw new java.io.IOException("disk full under " + lease.fencingToken());
                    }))
        .isInstanceOf(java.io.IOException.class)
        .hasMessageContaining("disk full");
  }

  @Test
  void theLeaseOfAnotherCopyIsToldThroughItsEntryOrRefusedWhenItCannotTell() throws Exception {
    WriterFence fence = fence();
    java.util.UUID token = java.util.UUID.randomUUID();
    long fencingToken = sql.acquire(name, token, "agent", (int) TTL.toSeconds());
    AnotherCopysHoldTest.Hold older =
        AnotherCopysHoldTest.Hold.of(
            name, AnotherCopysHoldTest.domainOf(fence), fencingToken, token);
    dev.writerfence.bootstrap.HeldFenceStack.push(older);
    try {
      FenceLease seen = WriterFence.current(name).orElseThrow();
      assertThatThrownBy(() -> seen.onLost(lost -> {}))
          .isInstanceOf(UnsupportedOperationException.class)
          .hasMessageContaining(name)
          .hasMessageContaining("poll isValid()");
    } finally {
      dev.writerfence.bootstrap.HeldFenceStack.pop(older.lease());
      sql.release(name, token);
    }
  }
}
