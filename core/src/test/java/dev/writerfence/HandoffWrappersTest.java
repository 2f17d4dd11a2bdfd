package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.writerfence.testing.ForkedJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Case C33 through core's wrappers ({@code WriterFence.wrap}): a task handed off inside a fenced
 * call runs inside the parent's hold (its lease is current there, with the parent's fencing token,
 * and a fenced call of the same name joins it: no second acquire, no waiting for the parent), a
 * task that outlives the hold is outside it, and one wrapped executor shared by many holders gives
 * every task its own submitter's hold and no other.
 */
class HandoffWrappersTest extends FenceTestSupport {
  private static final long WAIT_SECONDS = 30;

  private final ExecutorService pool = Executors.newFixedThreadPool(3);
  private final ScheduledExecutorService scheduler = Executors.newScheduledThreadPool(1);

  @AfterEach
  void stopPools() {
    pool.shutdownNow();
    scheduler.shutdownNow();
  }

  /** What a task saw: the current lease's fencing token, and the token of a joined fenced call. */
  private record Seen(long current, long joined) {}

  private Callable<Seen> lookAndJoin(WriterFence fence) {
    return () ->
        new Seen(
            WriterFence.current(name).orElseThrow().fencingToken(),
            fence.call(
                request("child"), () -> fence.currentLease(name).orElseThrow().fencingToken()));
  }

  @Test
  void C33_tasksThroughEveryWrapperSeeTheParentsLeaseAndJoinIt() throws Exception {
    WriterFence fence = fence();
    Map<String, Seen> seen = new ConcurrentHashMap<>();
    long parentToken =
        fence.call(
            request("parent"),
            () -> {
              Callable<Seen> task = lookAndJoin(fence);
              seen.put("wrap(Callable)", pool.submit(WriterFence.wrap(task)).get());

              FutureTask<Seen> onAThread = new FutureTask<>(task);
              Thread thread = new Thread(WriterFence.wrap(onAThread));
              thread.start();
              seen.put("wrap(Runnable) on a new thread", onAThread.get());

              FutureTask<Seen> executed = new FutureTask<>(task);
              WriterFence.wrap(command -> pool.execute(command)).execute(executed);
              seen.put("wrap(Executor)", executed.get());

              ExecutorService service = WriterFence.wrap(pool);
              seen.put("wrap(ExecutorService).submit", service.submit(task).get());
              for (Future<Seen> f : service.invokeAll(List.of(task, task))) {
                seen.put("wrap(ExecutorService).invokeAll " + seen.size(), f.get());
              }
              seen.put(
                  "CompletableFuture.supplyAsync on wrap(ExecutorService)",
                  CompletableFuture.supplyAsync(
                          () -> {
                            try {
                              return task.call();
                            } catch (Exception e) {
                              throw new IllegalStateException(e);
                            }
                          },
                          service)
                      .get());
              seen.put(
                  "wrap(ScheduledExecutorService).schedule",
                  WriterFence.wrap(scheduler).schedule(task, 10, TimeUnit.MILLISECONDS).get());
              return fence.currentLease(name).orElseThrow().fencingToken();
            });

    assertThat(seen).hasSize(8);
    seen.forEach(
        (how, s) -> {
          assertThat(s.current()).as(how + ": the parent's lease").isEqualTo(parentToken);
          assertThat(s.joined()).as(how + ": a fenced call joins it").isEqualTo(parentToken);
        });
    assertThat(sql.fencingToken(name)).as("no second acquire").isEqualTo(parentToken);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void C33_aTaskThatOutlivesTheParentsHoldIsOutsideItAndAcquiresItsOwn() throws Exception {
    WriterFence fence = fence();
    CountDownLatch looked = new CountDownLatch(1);
    CountDownLatch parentEnded = new CountDownLatch(1);
    ExecutorService service = WriterFence.wrap(pool);
    long[] parentToken = new long[1];
    Future<long[]> task =
        fence.call(
            request("parent"),
            () -> {
              parentToken[0] = fence.currentLease(name).orElseThrow().fencingToken();
              Future<long[]> submitted =
                  service.submit(
                      () -> {
                        long inside =
                            WriterFence.current(name).map(FenceLease::fencingToken).orElse(-1L);
                        looked.countDown();
                        assertThat(parentEnded.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                        boolean stillCurrent = WriterFence.current(name).isPresent();
                        long own =
                            fence.call(
                                request("late child"),
                                () -> fence.currentLease(name).orElseThrow().fencingToken());
                        return new long[] {inside, stillCurrent ? 1 : 0, own};
                      });
              assertThat(looked.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
              return submitted;
            });
    parentEnded.countDown();
    long[] seen = task.get(WAIT_SECONDS, TimeUnit.SECONDS);

    assertThat(seen[0]).as("inside while the parent held").isEqualTo(parentToken[0]);
    assertThat(seen[1]).as("the parent's lease after its call ended").isZero();
    assertThat(seen[2])
        .as("a fenced call after the hold ended acquires a lease of its own")
        .isGreaterThan(parentToken[0]);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void C33_oneSharedWrappedExecutorGivesEveryTaskItsOwnParentsTokenAndNoOther() throws Exception {
    int parents = 6;
    int tasksEach = 8;
    WriterFence fence = fence();
    ExecutorService shared = WriterFence.wrap(pool); // made outside any hold, shared by all
    List<String> names = new ArrayList<>();
    for (int p = 0; p < parents; p++) {
      names.add(name + "-" + p);
    }
    Map<String, Long> parentTokens = new ConcurrentHashMap<>();
    Map<String, List<Long>> taskTokens = new ConcurrentHashMap<>();
    List<String> foreign = java.util.Collections.synchronizedList(new ArrayList<>());
    CountDownLatch allHold = new CountDownLatch(parents);

    ExecutorService parentThreads = Executors.newFixedThreadPool(parents);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String own : names) {
        done.add(
            parentThreads.submit(
                () ->
                    fence.call(
                        FenceRequest.builder(own).holderLabel("parent").build(),
                        () -> {
                          parentTokens.put(
                              own, WriterFence.current(own).orElseThrow().fencingToken());
                          allHold.countDown(); // every parent submits while all of them hold
                          assertThat(allHold.await(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
                          List<Future<Long>> tasks = new ArrayList<>();
                          for (int t = 0; t < tasksEach; t++) {
                            tasks.add(
                                shared.submit(
                                    () -> {
                                      for (String other : names) {
                                        if (!other.equals(own)
                                            && WriterFence.current(other).isPresent()) {
                                          foreign.add(own + " saw " + other);
                                        }
                                      }
                                      return WriterFence.current(own)
                                          .map(FenceLease::fencingToken)
                                          .orElse(-1L);
                                    }));
                          }
                          List<Long> tokens = new ArrayList<>();
                          for (Future<Long> f : tasks) {
                            tokens.add(f.get(WAIT_SECONDS, TimeUnit.SECONDS));
                          }
                          taskTokens.put(own, tokens);
                          return null;
                        })));
      }
      for (Future<?> f : done) {
        f.get(WAIT_SECONDS * 2, TimeUnit.SECONDS);
      }
    } finally {
      parentThreads.shutdownNow();
    }

    assertThat(taskTokens).containsOnlyKeys(names);
    for (String own : names) {
      assertThat(taskTokens.get(own))
          .as("the tasks of %s", own)
          .hasSize(tasksEach)
          .containsOnly(parentTokens.get(own));
    }
    assertThat(foreign).as("tasks that saw another parent's hold").isEmpty();
    assertThat(
            pool.submit(() -> names.stream().anyMatch(n -> WriterFence.current(n).isPresent()))
                .get())
        .as("a pool thread after the tasks")
        .isFalse();
  }

  @Test
  void C33_virtualThreadsThroughTheWrappersSeeTheParentsLeaseAndJoinIt() throws Exception {
    Optional<String> java = ForkedJvm.newestJdk();
    assumeTrue(
        java.isPresent(),
        "virtual threads need a JDK 21 or newer: none found (set WRITER_FENCE_NEWEST_JDK)");
    long parent;
    try (ForkedJvm process =
        ForkedJvm.startOn(
            java.get(),
            List.of(),
            ForkedJvm.testClassPath(),
            VirtualThreadHandoff.class.getName(),
            DB.jdbcUrl(),
            SCHEMA,
            name)) {
      Duration answer = Duration.ofSeconds(60);
      parent = Long.parseLong(process.awaitLine("parent ", answer).substring(7));
      List<String> tasks = process.awaitLines("task ", 9, answer);
      String late = process.awaitLine("late ", answer);
      process.awaitLine("done", answer);

      assertThat(tasks)
          .as("every task on a virtual thread: the parent's lease, and a joined call's")
          .containsOnly(
              "task executor " + parent + " " + parent, "task thread " + parent + " " + parent)
          .contains("task thread " + parent + " " + parent);
      assertThat(late).as("the task that outlived the parent's call").isEqualTo("late -1");
    }
    assertThat(sql.fencingToken(name)).as("no second acquire").isEqualTo(parent);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void wrappingTwiceAddsNoSecondWrapperAndNothingIsWrappedOutsideAHold() {
    ExecutorService service = WriterFence.wrap(pool);
    assertThat(WriterFence.wrap(service)).isSameAs(service);
    ScheduledExecutorService scheduled = WriterFence.wrap(scheduler);
    assertThat(WriterFence.wrap(scheduled)).isSameAs(scheduled);
    Runnable task = () -> {};
    assertThat(WriterFence.wrap(task)).as("nothing to carry outside a hold").isSameAs(task);
  }
}
