package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * C32: a fenced call whose result outlives the call (a lazy result subscribed, or a {@code
 * CompletionStage} returned) made on a thread that already holds the same fence name joins that
 * hold and pins it: the outer call's release waits until the joined work has ended, so no second
 * writer gets the fence while that work still writes, and the row is freed once it ends.
 */
class JoinedAsyncResultTest extends FenceTestSupport {

  /** Fenced methods whose work goes on on another thread until told to finish. */
  static class Writer {
    final CountDownLatch writing = new CountDownLatch(1);
    final CountDownLatch finish = new CountDownLatch(1);

    private String work() throws InterruptedException {
      writing.countDown();
      finish.await(30, TimeUnit.SECONDS);
      return "written";
    }

    @WriterFenced("{0}")
    public Mono<String> mono(String fence) {
      return Mono.fromCallable(this::work).subscribeOn(Schedulers.boundedElastic());
    }

    @WriterFenced("{0}")
    public CompletableFuture<String> stage(String fence) {
      return CompletableFuture.supplyAsync(
          () -> {
            try {
              return work();
            } catch (InterruptedException e) {
              throw new IllegalStateException(e);
            }
          });
    }
  }

  @Test
  void aMonoSubscribedInsideAnOuterHoldOfItsNameIsStillHeldAfterTheOuterCallReturns()
      throws Throwable {
    Writer writer = new Writer();
    assertHeldAfterTheOuterCall(
        writer,
        "mono",
        (result, done) -> ((Mono<?>) result).doFinally(s -> done.countDown()).subscribe());
  }

  @Test
  void aStageReturnedInsideAnOuterHoldOfItsNameIsStillHeldAfterTheOuterCallReturns()
      throws Throwable {
    Writer writer = new Writer();
    assertHeldAfterTheOuterCall(
        writer,
        "stage",
        (result, done) -> ((CompletableFuture<?>) result).whenComplete((v, t) -> done.countDown()));
  }

  @Test
  void anInterruptibleCallInACarriedTaskPinsTheOuterHoldUntilItEnds() throws Exception {
    CountDownLatch writing = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (WriterFence fence = fence();
        WriterFence other = fence()) {
      ExecutorService carrying = WriterFence.wrap(pool);
      Future<?> task =
          fence.call(
              FenceRequest.of(name),
              () -> {
                Future<?> submitted =
                    carrying.submit(
                        () ->
                            fence.call(
                                FenceRequest.builder(name).interruptOnLoss(true).build(),
                                () -> {
                                  writing.countDown();
                                  return finish.await(30, TimeUnit.SECONDS);
                                }));
                // The task's call joins while the outer hold is held; then the outer returns.
                assertThat(writing.await(10, TimeUnit.SECONDS))
                    .as("the task's call started")
                    .isTrue();
                return submitted;
              });
      Optional<FenceLease> second;
      try {
        // The outer call has returned; the task's interruptible call, joined to it, still runs.
        second = other.tryAcquire(FenceRequest.builder(name).holderLabel("second").build());
        second.ifPresent(other::release);
      } finally {
        finish.countDown();
      }
      task.get(10, TimeUnit.SECONDS);
      assertThat(second)
          .as("a second writer acquired while the joined interruptible call still ran")
          .isEmpty();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(sql.state(name)).as("released once the call ended").isEqualTo("free"));
    } finally {
      pool.shutdownNow();
    }
  }

  /** Calls {@code method} inside an outer call of the same name, then tries a second writer. */
  private void assertHeldAfterTheOuterCall(
      Writer writer, String method, BiConsumer<Object, CountDownLatch> start) throws Throwable {
    Method m = Writer.class.getMethod(method, String.class);
    try (WriterFence fence = fence();
        WriterFence other = fence()) {
      CountDownLatch done = new CountDownLatch(1);
      fence.run(
          FenceRequest.of(name),
          () -> {
            try {
              Object result =
                  FencedMethods.proceed(
                      fence, m, new Object[] {name}, () -> m.invoke(writer, name));
              start.accept(result, done); // fire and forget
            } catch (Throwable t) {
              throw new IllegalStateException(t);
            }
          });
      assertThat(writer.writing.await(10, TimeUnit.SECONDS)).as("the inner write started").isTrue();
      Optional<FenceLease> second;
      try {
        // The outer call has returned; the inner fenced call's work still writes.
        second = other.tryAcquire(FenceRequest.builder(name).holderLabel("second").build());
        second.ifPresent(other::release);
      } finally {
        writer.finish.countDown();
        done.await(10, TimeUnit.SECONDS);
      }
      assertThat(second)
          .as("a second writer acquired while the inner fenced call was still writing")
          .isEmpty();
      await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () ->
                  assertThat(sql.state(name)).as("released once the work ended").isEqualTo("free"));
    }
  }
}
