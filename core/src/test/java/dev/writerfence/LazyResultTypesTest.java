package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.internal.weaving.LazyResults;
import dev.writerfence.retry.BusyRetryPolicy;
import io.reactivex.rxjava3.core.Single;
import java.lang.reflect.Method;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Case C32 at parse time: which declared result types {@link FencedMethods} holds per subscription,
 * which it holds the usual way, and which it refuses, naming the method and the type (the weaving
 * contract's C32 expectations prove the holds themselves in every mode).
 */
class LazyResultTypesTest {

  /** Fenced methods of every kind of result; none is called. */
  static class Results {
    @WriterFenced("c32")
    public Mono<String> mono() {
      return Mono.empty();
    }

    @WriterFenced("c32")
    public Flux<String> flux() {
      return Flux.empty();
    }

    @WriterFenced(value = "c32", onBusy = OnBusy.SKIP)
    public Flux<String> fluxOrSkip() {
      return Flux.empty();
    }

    @WriterFenced("c32")
    public CompletableFuture<String> stage() {
      return CompletableFuture.completedFuture("");
    }

    @WriterFenced("c32")
    public Future<String> future() {
      return CompletableFuture.completedFuture("");
    }

    @WriterFenced("c32")
    public FutureTask<String> futureTask() {
      return new FutureTask<>(() -> "");
    }

    @WriterFenced("c32")
    public Flow.Publisher<String> flowPublisher() {
      return subscriber -> {};
    }

    @WriterFenced("c32")
    public Publisher<String> publisher() {
      return Flux.empty();
    }

    @WriterFenced(value = "c32", interruptOnLoss = true)
    public Mono<String> monoInterrupted() {
      return Mono.empty();
    }

    @WriterFenced(value = "c32", onBusy = OnBusy.SKIP)
    public Single<String> singleOrSkip() {
      return Single.just("");
    }
  }

  @Test
  void reactorAndRxJavaResultsAreHeldPerSubscription() throws Exception {
    assertThat(lazy("mono")).isTrue();
    assertThat(lazy("flux")).isTrue();
    assertThat(lazy("fluxOrSkip")).as("SKIP on a Flux: an empty Flux").isTrue();
    assertThat(lazy("stage")).as("a CompletionStage keeps today's hold").isFalse();
    assertThat(LazyResults.isLazy(Mono.class)).isTrue();
    assertThat(LazyResults.isLazy(Single.class)).isTrue();
    assertThat(LazyResults.isLazy(CompletableFuture.class)).isFalse();
  }

  @Test
  void C32_resultsNoLeaseCanBeHeldForAreRefusedAtParseNamingTheMethodAndTheType() {
    assertRefused("future", "java.util.concurrent.Future");
    assertRefused("futureTask", "java.util.concurrent.FutureTask");
    assertRefused("flowPublisher", "java.util.concurrent.Flow$Publisher");
    assertRefused("publisher", "org.reactivestreams.Publisher");
  }

  @Test
  void skipOnASingleIsRefusedAtParse() {
    assertThatThrownBy(() -> FencedMethods.lookup(method("singleOrSkip")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("singleOrSkip")
        .hasMessageContaining("io.reactivex.rxjava3.core.Single")
        .hasMessageContaining("onBusy = SKIP");
  }

  @Test
  void interruptOnLossOnALazyResultCancelsItsSubscriptionOnLossAndInterruptsNoThread()
      throws Exception {
    FencedMethods.FencedMethod m = FencedMethods.lookup(method("monoInterrupted")).orElseThrow();
    assertThat(m.lazyResult())
        .hasValueSatisfying(l -> assertThat(l).asString().contains("cancelled on loss"));
    assertThat(m.request(null, BusyRetryPolicy.defaults()).interruptOnLoss())
        .as("the enter of a subscription interrupts no thread")
        .isFalse();
    assertThat(FencedMethods.lookup(method("mono")).orElseThrow().lazyResult())
        .hasValueSatisfying(l -> assertThat(l).asString().doesNotContain("cancelled on loss"));
  }

  @Test
  void kotlinSuspendFunctionsAreHeldAndFlowsAreRefused() {
    Predicate<String> none = name -> false;
    assertThat(
            LazyResults.of(
                    "Uploads.put", "java.lang.Object", none, "kotlin.coroutines.Continuation", null)
                .isSuspend())
        .as("a suspend function is held until it resumes its caller")
        .isTrue();
    assertThatThrownBy(
            () ->
                LazyResults.of(
                    "Uploads.stream",
                    "kotlinx.coroutines.flow.Flow",
                    "kotlinx.coroutines.flow.Flow"::equals,
                    null,
                    null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Uploads.stream")
        .hasMessageContaining("kotlinx.coroutines.flow.Flow");
  }

  private static boolean lazy(String name) throws Exception {
    return FencedMethods.lookup(method(name)).orElseThrow().lazyResult().isPresent();
  }

  private static void assertRefused(String name, String type) {
    assertThatThrownBy(() -> FencedMethods.lookup(method(name)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Results.class.getName() + "." + name)
        .hasMessageContaining("which returns " + type);
  }

  private static Method method(String name) throws NoSuchMethodException {
    return Results.class.getMethod(name);
  }

  @Test
  void interruptOnLossIsRefusedOnASuspendFunctionWhoseCoroutineALossDoesNotCancel() {
    assertThatThrownBy(
            () ->
                LazyResults.of(
                    "com.acme.Writer.put(Continuation)",
                    "java.lang.Object",
                    name -> false,
                    "kotlin.coroutines.Continuation",
                    null,
                    true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interruptOnLoss is not allowed on com.acme.Writer.put(Continuation)")
        .hasMessageContaining("lease.onLost");
  }
}
