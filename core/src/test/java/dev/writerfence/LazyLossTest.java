package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.testing.CountingListener;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Observable;
import io.reactivex.rxjava3.core.Single;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Case C32 with {@code interruptOnLoss}: a lazy result's subscription is cancelled when its lease
 * is lost, for each of the seven types, against the real database (the row is taken over in SQL and
 * the next renewal finds it lost). The work never ends on its own: only the loss ends it.
 */
class LazyLossTest extends FenceTestSupport {

  /** What the work saw, in order: "subscribed", then "cancelled" (or "disposed"). */
  final List<String> seen = Collections.synchronizedList(new ArrayList<>());

  /** The lease inside the method's body, which runs at subscription. */
  final AtomicReference<FenceLease> inside = new AtomicReference<>();

  /** Fenced methods whose work never ends; each records its lease, subscription and cancel. */
  class Writers {
    private void body(String fence) {
      inside.set(WriterFence.current(fence).orElseThrow());
      seen.add("subscribed");
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Mono<String> mono(String fence) {
      body(fence);
      return Mono.<String>never().doOnCancel(() -> seen.add("cancelled"));
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Flux<String> flux(String fence) {
      body(fence);
      return Flux.<String>never().startWith("first").doOnCancel(() -> seen.add("cancelled"));
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Single<String> single(String fence) {
      body(fence);
      return Single.<String>never().doOnDispose(() -> seen.add("disposed"));
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Maybe<String> maybe(String fence) {
      body(fence);
      return Maybe.<String>never().doOnDispose(() -> seen.add("disposed"));
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Completable completable(String fence) {
      body(fence);
      return Completable.never().doOnDispose(() -> seen.add("disposed"));
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Flowable<String> flowable(String fence) {
      body(fence);
      return Flowable.<String>never()
          .startWithItem("first")
          .doOnCancel(() -> seen.add("cancelled"));
    }

    @WriterFenced(value = "{0}", interruptOnLoss = true)
    public Observable<String> observable(String fence) {
      body(fence);
      return Observable.<String>never()
          .startWithItem("first")
          .doOnDispose(() -> seen.add("disposed"));
    }

    /** Without the opt-in: the work goes on after the loss, until {@code end} completes. */
    @WriterFenced("{0}")
    public Mono<String> monoNotCancelled(String fence, Sinks.One<String> end) {
      body(fence);
      return end.asMono().doOnCancel(() -> seen.add("cancelled"));
    }
  }

  private final Writers writers = new Writers();

  private Object call(WriterFence fence, String method, Object... args) throws Throwable {
    Class<?>[] types = new Class<?>[args.length];
    types[0] = String.class;
    for (int i = 1; i < args.length; i++) {
      types[i] = Sinks.One.class;
    }
    Method m = Writers.class.getMethod(method, types);
    return FencedMethods.proceed(fence, m, args, () -> m.invoke(writers, args));
  }

  /** The subscription's error signal, or {@code null} when it completed. */
  private static CompletableFuture<Throwable> subscribe(Object result) {
    CompletableFuture<Throwable> end = new CompletableFuture<>();
    if (result instanceof Mono<?> mono) {
      mono.subscribe(v -> {}, end::complete, () -> end.complete(null));
    } else if (result instanceof Flux<?> flux) {
      flux.subscribe(v -> {}, end::complete, () -> end.complete(null));
    } else if (result instanceof Single<?> single) {
      single.subscribe(v -> end.complete(null), end::complete);
    } else if (result instanceof Maybe<?> maybe) {
      maybe.subscribe(v -> end.complete(null), end::complete, () -> end.complete(null));
    } else if (result instanceof Completable completable) {
      completable.subscribe(() -> end.complete(null), end::complete);
    } else if (result instanceof Flowable<?> flowable) {
      flowable.subscribe(v -> {}, end::complete, () -> end.complete(null));
    } else {
      ((Observable<?>) result).subscribe(v -> {}, end::complete, () -> end.complete(null));
    }
    return end;
  }

  private static WriterFence quickRenewal(CountingListener listener) {
    return fence(DB.dataSource()).renewInterval(Duration.ofMillis(200)).listener(listener).build();
  }

  /**
   * Subscribes to the method's result, takes its lease over once its work runs, and checks: the
   * subscription ends in {@link FenceLostException} naming the fence, its work saw the cancel, the
   * lease is lost and released once, and the other holder's row is not freed.
   */
  private void cancelledOnLoss(String method, String cancelSignal) throws Throwable {
    CountingListener listener = new CountingListener();
    try (WriterFence fence = quickRenewal(listener)) {
      Object result = call(fence, method, name);
      assertThat(seen).as("the work before any subscription").isEmpty();
      CompletableFuture<Throwable> end = subscribe(result);
      await("the work runs")
          .atMost(Duration.ofSeconds(30))
          .until(() -> seen.contains("subscribed"));
      assertThat(sql.state(name)).as("the row while the work runs").isEqualTo("held");
      takeOver();

      Throwable thrown = end.get(60, TimeUnit.SECONDS);
      assertThat(thrown).as("the subscription's end").isInstanceOf(FenceLostException.class);
      FenceLostException lost = (FenceLostException) thrown;
      assertThat(lost.fenceName()).isEqualTo(name);
      assertThat(lost.fencingToken()).isEqualTo(inside.get().fencingToken());
      assertThat(lost.reason()).contains("taken over");
      assertThat(seen).as("what the work saw").containsExactly("subscribed", cancelSignal);
      assertThat(inside.get().isValid()).as("the lease after the loss").isFalse();
      await("the release")
          .atMost(Duration.ofSeconds(30))
          .until(() -> listener.freed() + listener.notFreed() > 0);
      assertThat(listener.notFreed()).as("releases that found another holder").isEqualTo(1);
      assertThat(listener.freed()).as("releases that freed the row").isZero();
      assertThat(sql.state(name)).as("the other holder's row is not freed").isEqualTo("held");
    }
  }

  @Test
  void C32_aMonoIsCancelledOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("mono", "cancelled");
  }

  @Test
  void C32_aFluxIsCancelledOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("flux", "cancelled");
  }

  @Test
  void C32_aSingleIsDisposedOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("single", "disposed");
  }

  @Test
  void C32_aMaybeIsDisposedOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("maybe", "disposed");
  }

  @Test
  void C32_aCompletableIsDisposedOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("completable", "disposed");
  }

  @Test
  void C32_aFlowableIsCancelledOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("flowable", "cancelled");
  }

  @Test
  void C32_anObservableIsDisposedOnLossAndEndsInFenceLostException() throws Throwable {
    cancelledOnLoss("observable", "disposed");
  }

  /**
   * A subscription that joins an outer blocking call's hold of the same name follows that hold's
   * loss: it is cancelled and ends in {@link FenceLostException}; one acquire in all.
   */
  @Test
  void C32_aJoinedSubscriptionIsCancelledOnTheLossOfTheOuterHold() throws Throwable {
    CountingListener listener = new CountingListener();
    try (WriterFence fence = quickRenewal(listener)) {
      AtomicReference<FenceLease> outer = new AtomicReference<>();
      CompletableFuture<Throwable> end = new CompletableFuture<>();
      Thread caller =
          new Thread(
              () -> {
                try {
                  fence.run(
                      request("outer"),
                      () -> {
                        outer.set(WriterFence.current(name).orElseThrow());
                        // Subscribed on this thread, inside the outer hold: it joins it.
                        Object mono;
                        try {
                          mono = call(fence, "mono", name);
                        } catch (Throwable t) {
                          throw new IllegalStateException(t);
                        }
                        end.complete(subscribe(mono).get(60, TimeUnit.SECONDS));
                      });
                } catch (Throwable t) {
                  end.completeExceptionally(t);
                }
              },
              "lazy-loss-outer");
      caller.setDaemon(true);
      caller.start();
      await("the work runs")
          .atMost(Duration.ofSeconds(30))
          .until(() -> seen.contains("subscribed"));
      assertThat(inside.get().fencingToken())
          .as("the lease inside the work is the outer one")
          .isEqualTo(outer.get().fencingToken());
      takeOver();

      Throwable thrown = end.get(60, TimeUnit.SECONDS);
      assertThat(thrown).isInstanceOf(FenceLostException.class);
      assertThat(((FenceLostException) thrown).fenceName()).isEqualTo(name);
      assertThat(seen).containsExactly("subscribed", "cancelled");
      caller.join(TimeUnit.SECONDS.toMillis(30));
      assertThat(FencingTokens.counter(sql.fencingToken(name)))
          .as("the subscription joined: one acquire")
          .isEqualTo(1);
      assertThat(listener.freed() + listener.notFreed()).as("releases").isEqualTo(1);
      assertThat(sql.state(name)).as("the other holder's row is not freed").isEqualTo("held");
    }
  }

  /** Without the opt-in the work goes on after the loss and ends as it would have. */
  @Test
  void C32_withoutTheOptInALazyResultIsNotCancelledOnLoss() throws Throwable {
    CountingListener listener = new CountingListener();
    try (WriterFence fence = quickRenewal(listener)) {
      Sinks.One<String> end = Sinks.one();
      @SuppressWarnings("unchecked")
      Mono<String> result = (Mono<String>) call(fence, "monoNotCancelled", name, end);
      CompletableFuture<String> value = result.toFuture();
      await("the work runs")
          .atMost(Duration.ofSeconds(30))
          .until(() -> seen.contains("subscribed"));
      takeOver();
      await("the loss").atMost(Duration.ofSeconds(30)).until(() -> !inside.get().isValid());
      assertThat(inside.get().lostReason()).isPresent();
      assertThat(value).as("the work after the loss").isNotDone();

      end.tryEmitValue("written");
      assertThat(value.get(60, TimeUnit.SECONDS)).isEqualTo("written");
      assertThat(seen).as("what the work saw").containsExactly("subscribed");
    }
  }
}
