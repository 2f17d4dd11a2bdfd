package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.testing.OtherWriter;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The queue's knobs of {@code @WriterFenced} as {@link FencedMethods} reads them once per method:
 * {@code priority} and {@code retryMaxWaitMillis} reach the request, {@code onBusy = SKIP} answers
 * busy (and only busy) with the method's empty value, and what cannot work is refused at parse.
 */
class FencedMethodKnobsTest extends FenceTestSupport {

  /** Writers whose methods carry the knobs; the fence name is the first argument. */
  static class Knobs {
    final AtomicInteger runs = new AtomicInteger();

    @WriterFenced(value = "{0}", priority = 50, retryMaxWaitMillis = 1500)
    public void prioritized(String fence) {
      runs.incrementAndGet();
    }

    @WriterFenced("{0}")
    public void defaults(String fence) {
      runs.incrementAndGet();
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public void skipVoid(String fence) {
      runs.incrementAndGet();
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public Optional<String> skipOptional(String fence) {
      runs.incrementAndGet();
      return Optional.of("ran");
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public OptionalLong skipOptionalLong(String fence) {
      runs.incrementAndGet();
      return OptionalLong.of(1);
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public CompletionStage<String> skipStage(String fence) {
      runs.incrementAndGet();
      return CompletableFuture.completedFuture("ran");
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
    public String skipReference(String fence) {
      runs.incrementAndGet();
      return "ran";
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP, retryMaxAttempts = 3)
    public Optional<String> skipAfterWaiting(String fence) {
      runs.incrementAndGet();
      return Optional.of("ran");
    }

    @WriterFenced(value = "{0}", onBusy = OnBusy.SKIP)
    public int skipPrimitive(String fence) {
      return 1;
    }

    @WriterFenced(value = "{0}", priority = 101)
    public void priorityTooHigh(String fence) {}

    @WriterFenced(value = "{0}", retryMaxWaitMillis = -1)
    public void negativeMaxWait(String fence) {}
  }

  private final Knobs knobs = new Knobs();

  private static Method method(String name) throws NoSuchMethodException {
    return Knobs.class.getMethod(name, String.class);
  }

  private Object call(WriterFence fence, String methodName) throws Throwable {
    Method m = method(methodName);
    return FencedMethods.proceed(fence, m, new Object[] {name}, () -> m.invoke(knobs, name));
  }

  @Test
  void priorityAndMaxWaitReachTheRequestAndTheDefaultsLeaveThemToTheFence() throws Exception {
    BusyRetryPolicy defaults = QUICK_RETRY;
    FenceRequest set =
        FencedMethods.lookup(method("prioritized"))
            .orElseThrow()
            .request(new Object[] {name}, defaults);
    assertThat(set.priority()).hasValue(50);
    assertThat(set.retryPolicy().orElseThrow().maxWait()).isEqualTo(Duration.ofMillis(1500));
    assertThat(set.retryPolicy().orElseThrow().budget()).isEqualTo(Duration.ofMillis(1500));
    // The other retry values stay the fence's.
    assertThat(set.retryPolicy().orElseThrow().maxAttempts()).isEqualTo(defaults.maxAttempts());

    FenceRequest unset =
        FencedMethods.lookup(method("defaults"))
            .orElseThrow()
            .request(new Object[] {name}, defaults);
    assertThat(unset.priority()).isEmpty();
    assertThat(unset.retryPolicy()).isEmpty();
  }

  @Test
  void aPrioritizedMethodRunsUnderTheFence() throws Throwable {
    try (WriterFence fence = fence()) {
      call(fence, "prioritized");
      assertThat(knobs.runs).hasValue(1);
      assertThat(FencingTokens.counter(sql.fencingToken(name))).isEqualTo(1L);
      assertThat(sql.state(name)).isEqualTo("free");
    }
  }

  @Test
  void skipOnBusyReturnsTheEmptyValueOfEachReturnTypeAndTheMethodDoesNotRun() throws Throwable {
    try (WriterFence fence = fence();
        WriterFence other = fence()) {
      FenceLease held =
          OtherWriter.acquire(other, FenceRequest.builder(name).holderLabel("other").build());
      try {
        assertThat(call(fence, "skipVoid")).isNull();
        assertThat(call(fence, "skipOptional")).isEqualTo(Optional.empty());
        assertThat(call(fence, "skipOptionalLong")).isEqualTo(OptionalLong.empty());
        assertThat(call(fence, "skipReference")).isNull();
        Object stage = call(fence, "skipStage");
        assertThat(stage).isInstanceOf(CompletableFuture.class);
        assertThat(((CompletableFuture<?>) stage).get(0, TimeUnit.SECONDS)).isNull();
        assertThat(knobs.runs).as("runs of a skipped method").hasValue(0);
        assertThat(held.isValid()).isTrue();
        assertThat(FencingTokens.counter(sql.fencingToken(name))).as("acquisitions").isEqualTo(1L);
      } finally {
        other.release(held);
      }
      // Not busy: the same methods run and return their own values.
      assertThat(call(fence, "skipOptional")).isEqualTo(Optional.of("ran"));
      assertThat(((CompletableFuture<?>) call(fence, "skipStage")).get(10, TimeUnit.SECONDS))
          .isEqualTo("ran");
      assertThat(knobs.runs).hasValue(2);
    }
  }

  @Test
  void skipOnBusyStillThrowsWhenTheLeaseCannotBeConfirmed() throws Throwable {
    WriterFence fence = fence();
    fence.close();
    Throwable thrown = catchThrowable(() -> call(fence, "skipOptional"));
    assertThat(thrown).isInstanceOf(WriterFenceUnavailableException.class);
    assertThat(knobs.runs).hasValue(0);
  }

  @Test
  void skipOnBusyStillThrowsWhenInterruptedWhileWaiting() throws Throwable {
    try (WriterFence fence = fence(DB.dataSource()).build()) {
      // Another thread's lease of this fence keeps the name's turn: the call has to wait for it.
      FenceLease held = OtherWriter.acquire(fence, FenceRequest.of(name));
      try {
        Thread.currentThread().interrupt();
        Throwable thrown = catchThrowable(() -> call(fence, "skipAfterWaiting"));
        assertThat(Thread.interrupted()).as("the interrupt flag, still set").isTrue();
        assertThat(thrown).isInstanceOf(WriterFenceInterruptedException.class);
        assertThat(knobs.runs).hasValue(0);
      } finally {
        Thread.interrupted();
        fence.release(held);
      }
    }
  }

  @Test
  void whatCannotWorkIsRefusedAtParseNamingTheMethod() {
    assertThatThrownBy(() -> FencedMethods.lookup(method("skipPrimitive")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("onBusy = SKIP is not allowed on")
        .hasMessageContaining("skipPrimitive")
        .hasMessageContaining("which returns int")
        .hasMessageContaining("in @WriterFenced on");
    assertThatThrownBy(() -> FencedMethods.lookup(method("priorityTooHigh")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("priority 101 is not allowed: -100 to 100")
        .hasMessageContaining("priorityTooHigh");
    assertThatThrownBy(() -> FencedMethods.lookup(method("negativeMaxWait")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("retryMaxWaitMillis -1 is not allowed")
        .hasMessageContaining("negativeMaxWait");
  }
}
