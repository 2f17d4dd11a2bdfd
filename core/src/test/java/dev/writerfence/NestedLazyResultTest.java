package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * C32, correct work never refused: a fenced Mono whose work continues on a thread Reactor did not
 * schedule (the completion of a {@code CompletableFuture}, as an async client's thread completes
 * it) and there subscribes a fenced Mono of the same name. The inner subscription joins the outer's
 * hold through the subscribers' Reactor context (ADR 53); were it to acquire anew it would wait for
 * its own parent's lease and end busy.
 */
class NestedLazyResultTest extends FenceTestSupport {

  /** Fenced methods of one name, the outer calling the inner through an async completion. */
  static class Writers {
    WriterFence fence;
    ExecutorService client; // stands for an async client's own threads, wrapped by nobody

    @WriterFenced("{0}")
    public Mono<String> inner(String fence) {
      return Mono.fromCallable(
          () -> "inner token " + WriterFence.current(fence).orElseThrow().fencingToken());
    }

    /** A put that completes on the client's thread, after the outer Mono subscribed to it. */
    static String put() {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return "put";
    }

    /** Two inner calls from a Flux, each subscribed on the client's completion thread. */
    @WriterFenced("{0}")
    public Flux<String> outerFlux(String name) {
      return Mono.fromFuture(CompletableFuture.supplyAsync(Writers::put, client))
          .flatMapMany(
              put ->
                  Flux.concat(
                      NestedLazyResultTest.<Mono<String>>call(this, "inner", fence, name),
                      NestedLazyResultTest.<Mono<String>>call(this, "inner", fence, name)));
    }

    @WriterFenced("{0}")
    public Mono<String> outer(String name) {
      return Mono.fromFuture(CompletableFuture.supplyAsync(Writers::put, client))
          .flatMap(put -> call(this, "inner", fence, name));
    }
  }

  @SuppressWarnings("unchecked")
  static <T> T call(Writers writers, String method, WriterFence fence, String name) {
    try {
      Method m = Writers.class.getMethod(method, String.class);
      return (T)
          FencedMethods.proceed(fence, m, new Object[] {name}, () -> m.invoke(writers, name));
    } catch (Throwable t) {
      throw new IllegalStateException(t);
    }
  }

  @Test
  void C32_aFencedMonoOfTheSameNameSubscribedOnAnAsyncClientsThreadJoinsTheOuterHold() {
    Writers writers = new Writers();
    writers.client = Executors.newSingleThreadExecutor();
    try (WriterFence fence = fence()) {
      writers.fence = fence;
      String result =
          NestedLazyResultTest.<Mono<String>>call(writers, "outer", fence, name)
              .onErrorResume(e -> Mono.just("failed: " + e))
              .block(Duration.ofSeconds(30));
      assertThat(result)
          .as("the inner call inside the outer's hold, with its token")
          .isEqualTo("inner token " + FencingTokens.first(1));
      LeaseStatus row = status(fence);
      assertThat(row.fencingToken())
          .as("one grant for both: the inner joined, it did not acquire")
          .isEqualTo(FencingTokens.first(1));
      assertThat(row.state()).as("released at the end").isEqualTo("free");
    } finally {
      writers.client.shutdownNow();
    }
  }

  @Test
  void C32_fencedMonosOfTheSameNameInsideAFencedFluxOnAnAsyncClientsThreadJoinItsHold() {
    Writers writers = new Writers();
    writers.client = Executors.newSingleThreadExecutor();
    try (WriterFence fence = fence()) {
      writers.fence = fence;
      List<String> results =
          NestedLazyResultTest.<Flux<String>>call(writers, "outerFlux", fence, name)
              .onErrorResume(e -> Mono.just("failed: " + e))
              .collectList()
              .block(Duration.ofSeconds(30));
      String joined = "inner token " + FencingTokens.first(1);
      assertThat(results)
          .as("both inner calls inside the outer's hold")
          .containsExactly(joined, joined);
      assertThat(status(fence).state()).as("released at the end").isEqualTo("free");
    } finally {
      writers.client.shutdownNow();
    }
  }
}
