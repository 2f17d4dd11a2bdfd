package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.context.HeldFencesAccessor;
import io.micrometer.context.ContextExecutorService;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Micrometer's context-propagation carries the held fences through {@link HeldFencesAccessor},
 * found by its service loading: a snapshot taken inside a fenced call puts the parent's hold on the
 * thread that restores it (case C33 through context-propagation), scopes stay balanced, and
 * clearing the key never hides a thread's own holds.
 */
@SuppressWarnings("try") // a scope's body is what it restores for, not the scope itself
class HeldFencesAccessorTest extends FenceTestSupport {
  private static final ContextSnapshotFactory SNAPSHOTS = ContextSnapshotFactory.builder().build();
  private static final ContextSnapshotFactory CLEARING =
      ContextSnapshotFactory.builder().clearMissing(true).build();

  private final ExecutorService pool = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopPool() {
    pool.shutdownNow();
  }

  @Test
  void theAccessorIsFoundByContextPropagationUnderItsKey() {
    assertThat(ContextRegistry.getInstance().getThreadLocalAccessors())
        .extracting(ThreadLocalAccessor::key)
        .containsOnlyOnce(HeldFencesAccessor.KEY);
    assertThat(new HeldFencesAccessor().getValue()).as("outside any hold").isNull();
  }

  @Test
  void eachRestoreUndoesTheLatestSetAndAnUnpairedRestoreChangesNothing() throws Exception {
    WriterFence fence = fence();
    HeldFencesAccessor accessor = new HeldFencesAccessor();
    String parentName = name + "-parent";
    List<String> seen =
        fence.call(
            FenceRequest.builder(parentName).build(),
            () -> {
              CarriedHolds parent = accessor.getValue();
              return pool.submit(
                      () ->
                          fence.call(
                              request("own"),
                              () -> {
                                List<String> s = new ArrayList<>();
                                accessor.restore(); // nothing set on this thread: ignored
                                s.add("unpaired restore " + holds(parentName));
                                accessor.setValue(parent);
                                s.add("set " + holds(parentName));
                                accessor.setValue(); // cleared: hides nothing
                                s.add("cleared " + holds(parentName));
                                accessor.restore();
                                s.add("cleared undone " + holds(parentName));
                                accessor.restore(null);
                                s.add("set undone " + holds(parentName));
                                accessor.restore();
                                s.add("unpaired again " + holds(parentName));
                                return s;
                              }))
                  .get(30, TimeUnit.SECONDS);
            });
    assertThat(seen)
        .containsExactly(
            "unpaired restore own",
            "set parent+own",
            "cleared parent+own",
            "cleared undone parent+own",
            "set undone own",
            "unpaired again own");
  }

  /** Which of the two holds this thread has: the parent's, its own ({@link #name}), or both. */
  private String holds(String parentName) {
    boolean parent = WriterFence.current(parentName).isPresent();
    boolean own = WriterFence.current(name).isPresent();
    return parent && own ? "parent+own" : parent ? "parent" : own ? "own" : "none";
  }

  @Test
  void C33_aSnapshotTakenInsideAFencedCallCarriesTheHoldUntilItsScopeCloses() throws Exception {
    WriterFence fence = fence();
    long[] seen =
        fence.call(
            request("parent"),
            () -> {
              ContextSnapshot snapshot = SNAPSHOTS.captureAll();
              return pool.submit(
                      () -> {
                        long inside;
                        long joined;
                        try (ContextSnapshot.Scope scope = snapshot.setThreadLocals()) {
                          inside = WriterFence.current(name).orElseThrow().fencingToken();
                          joined =
                              fence.call(
                                  request("child"),
                                  () -> fence.currentLease(name).orElseThrow().fencingToken());
                        }
                        boolean after = WriterFence.current(name).isPresent();
                        return new long[] {inside, joined, after ? 1 : 0};
                      })
                  .get(30, TimeUnit.SECONDS);
            });
    long token = sql.fencingToken(name);
    assertThat(seen[0]).as("the parent's lease in the task").isEqualTo(token);
    assertThat(seen[1]).as("a fenced call joins it").isEqualTo(token);
    assertThat(seen[2]).as("after the scope closed").isZero();
  }

  @Test
  void C33_contextExecutorServiceCarriesEachSubmittersHold() throws Exception {
    WriterFence fence = fence();
    ExecutorService carrying = ContextExecutorService.wrap(pool, SNAPSHOTS::captureAll);
    long[] seen =
        fence.call(
            request("parent"),
            () ->
                new long[] {
                  fence.currentLease(name).orElseThrow().fencingToken(),
                  carrying
                      .submit(() -> WriterFence.current(name).orElseThrow().fencingToken())
                      .get(30, TimeUnit.SECONDS)
                });
    assertThat(seen[1]).isEqualTo(seen[0]);
    assertThat(carrying.submit(() -> WriterFence.current(name).isPresent()).get())
        .as("submitted outside the hold")
        .isFalse();
  }

  @Test
  void reactorsAutomaticContextPropagationCarriesTheHoldToItsSchedulers() throws Exception {
    WriterFence fence = fence();
    Hooks.enableAutomaticContextPropagation();
    try {
      List<Long> seen =
          fence.call(
              request("parent"),
              () ->
                  Flux.range(0, 8)
                      .flatMap(
                          i ->
                              Mono.fromCallable(() -> token(name))
                                  .subscribeOn(Schedulers.boundedElastic()))
                      .publishOn(Schedulers.parallel())
                      .map(t -> t == token(name) ? t : -2L)
                      .collectList()
                      .block(Duration.ofSeconds(30)));
      List<Long> after =
          Flux.range(0, 8)
              .flatMap(
                  i ->
                      Mono.fromCallable(() -> token(name)).subscribeOn(Schedulers.boundedElastic()))
              .collectList()
              .block(Duration.ofSeconds(30));

      assertThat(seen)
          .as("on Reactor's schedulers, inside the fenced call")
          .hasSize(8)
          .containsOnly(sql.fencingToken(name));
      assertThat(after).as("subscribed after the call ended").containsOnly(-1L);
    } finally {
      Hooks.disableAutomaticContextPropagation();
    }
  }

  private static long token(String fenceName) {
    return WriterFence.current(fenceName).map(FenceLease::fencingToken).orElse(-1L);
  }

  @Test
  void clearingTheKeyKeepsTheThreadsOwnHoldsAndScopesUndoExactlyWhatTheySet() throws Exception {
    WriterFence fence = fence();
    String parentName = name + "-parent";
    ContextSnapshot empty = CLEARING.captureAll(); // taken outside any hold: no holds in it
    ContextSnapshot parent =
        fence.call(FenceRequest.builder(parentName).build(), () -> CLEARING.captureAll());
    FenceLease parentLease = fence.acquire(FenceRequest.builder(parentName).build());
    try {
      ContextSnapshot liveParent = CLEARING.captureAll();
      boolean[] seen =
          pool.submit(
                  () ->
                      fence.call(
                          request("own"),
                          () -> {
                            boolean[] s = new boolean[6];
                            try (ContextSnapshot.Scope cleared = empty.setThreadLocals()) {
                              s[0] = WriterFence.current(name).isPresent();
                              try (ContextSnapshot.Scope carried = liveParent.setThreadLocals()) {
                                s[1] = WriterFence.current(parentName).isPresent();
                                s[2] = WriterFence.current(name).isPresent();
                              }
                              s[3] = WriterFence.current(parentName).isPresent();
                            }
                            try (ContextSnapshot.Scope stale = parent.setThreadLocals()) {
                              s[4] = WriterFence.current(parentName).isPresent();
                            }
                            s[5] = WriterFence.current(name).isPresent();
                            return s;
                          }))
              .get(30, TimeUnit.SECONDS);
      assertThat(seen[0]).as("own hold under a snapshot without holds").isTrue();
      assertThat(seen[1]).as("the carried hold").isTrue();
      assertThat(seen[2]).as("own hold beside the carried one").isTrue();
      assertThat(seen[3]).as("the carried hold after its scope closed").isFalse();
      assertThat(seen[4]).as("a hold whose call ended, restored later").isFalse();
      assertThat(seen[5]).as("own hold after every scope closed").isTrue();
      assertThat(parentLease.isValid()).isTrue();
    } finally {
      fence.release(parentLease);
    }
  }
}
