package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.testing.OtherWriter;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Observable;
import java.lang.reflect.Method;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Case C32 for the RxJava 3 types the weaving contract does not call ({@code Maybe}, {@code
 * Completable}, {@code Observable}): each subscription holds the lease while its work runs and
 * frees the row at its end, and {@code onBusy = SKIP} completes them empty without running the
 * body.
 */
class LazyRxJavaResultsTest extends FenceTestSupport {

  /** Fenced methods returning the RxJava types; {@code work} records the lease inside. */
  static class RxWriters {
    final AtomicInteger runs = new AtomicInteger();
    final AtomicLong tokenInside = new AtomicLong();

    private void work(String fence) {
      runs.incrementAndGet();
      tokenInside.set(WriterFence.current(fence).orElseThrow().fencingToken());
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public Maybe<String> maybe(String fence) {
      return Maybe.fromCallable(
          () -> {
            work(fence);
            return "maybe";
          });
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public Completable completable(String fence) {
      return Completable.fromRunnable(() -> work(fence));
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public Observable<String> observable(String fence) {
      return Observable.fromCallable(
          () -> {
            work(fence);
            return "observable";
          });
    }
  }

  private final RxWriters writers = new RxWriters();

  private Object call(WriterFence fence, String methodName) throws Throwable {
    Method m = RxWriters.class.getMethod(methodName, String.class);
    return FencedMethods.proceed(fence, m, new Object[] {name}, () -> m.invoke(writers, name));
  }

  @Test
  void C32_maybeCompletableAndObservableHoldTheirLeaseWhileSubscribed() throws Throwable {
    try (WriterFence fence = fence()) {
      Maybe<?> maybe = (Maybe<?>) call(fence, "maybe");
      Completable completable = (Completable) call(fence, "completable");
      Observable<?> observable = (Observable<?>) call(fence, "observable");
      assertThat(writers.runs).as("bodies run before any subscription").hasValue(0);

      assertThat(maybe.blockingGet()).isEqualTo("maybe");
      assertThat(writers.tokenInside)
          .as("the lease inside the Maybe")
          .hasValue(FencingTokens.first(1));
      completable.blockingAwait();
      assertThat(writers.tokenInside)
          .as("the lease inside the Completable")
          .hasValue(FencingTokens.first(1) + 1);
      assertThat(observable.map(Object::toString).toList().blockingGet())
          .containsExactly("observable");
      assertThat(writers.tokenInside)
          .as("the lease inside the Observable")
          .hasValue(FencingTokens.first(1) + 2);
      assertThat(sql.state(name)).as("the row after the three").isEqualTo("free");
    }
  }

  @Test
  void C32_skipCompletesMaybeCompletableAndObservableEmptyWithoutRunningTheBody() throws Throwable {
    try (WriterFence fence = fence();
        WriterFence other = fence()) {
      FenceLease held =
          OtherWriter.acquire(other, FenceRequest.builder(name).holderLabel("other").build());
      try {
        assertThat(((Maybe<?>) call(fence, "maybe")).isEmpty().blockingGet()).isTrue();
        ((Completable) call(fence, "completable")).blockingAwait();
        assertThat(((Observable<?>) call(fence, "observable")).toList().blockingGet()).isEmpty();
        assertThat(writers.runs).as("bodies run while busy").hasValue(0);
      } finally {
        other.release(held);
      }
    }
  }
}
