package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.testing.CountingListener;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The high-level fenced calls beyond the shared cases: asynchronous holds and interruption. */
class FencedCallTest extends FenceTestSupport {

  @Test
  void asyncCallKeepsTheLeaseUntilItsStageCompletes() throws Exception {
    WriterFence fence = fence();
    CompletableFuture<String> work = new CompletableFuture<>();

    CompletableFuture<String> fenced = fence.callAsync(request("async"), () -> work);
    assertThat(sql.state(name)).isEqualTo("held");
    assertThat(fence.tryAcquire(FenceRequest.builder(name).holderLabel("other").ttl(TTL).build()))
        .as("busy while the stage runs")
        .isEmpty();

    work.complete("written");
    assertThat(fenced.get(5, TimeUnit.SECONDS)).isEqualTo("written");
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void asyncCallReleasesWhenItsStageFailsAndPassesTheFailureOn() throws Exception {
    WriterFence fence = fence();
    CompletableFuture<String> work = new CompletableFuture<>();
    IllegalStateException failure = new IllegalStateException("upload failed");

    CompletableFuture<String> fenced = fence.callAsync(request("async"), () -> work);
    work.completeExceptionally(failure);

    assertThat(fenced)
        .failsWithin(Duration.ofSeconds(5))
        .withThrowableOfType(ExecutionException.class)
        .havingCause()
        .isSameAs(failure);
    assertThat(sql.state(name)).isEqualTo("free");
  }

  @Test
  void cancellingTheReturnedFutureNeitherCancelsTheWorkNorReleasesEarly() throws Exception {
    WriterFence fence = fence();
    CompletableFuture<String> work = new CompletableFuture<>();

    CompletableFuture<String> fenced = fence.callAsync(request("async"), () -> work);
    assertThat(fenced.cancel(true)).isTrue();

    assertThat(work).as("the work runs on").isNotDone();
    assertThat(sql.state(name)).as("the lease stays held while the work runs").isEqualTo("held");
    work.complete("written");
    await().atMost(Duration.ofSeconds(5)).until(() -> "free".equals(sql.state(name)));
  }

  @Test
  void interruptWhileWaitingOnABusyFenceIsInterruptedNotUnavailableAndKeepsTheFlag()
      throws Exception {
    FenceLease holder =
        fence()
            .tryAcquire(FenceRequest.builder(name).holderLabel("holder").ttl(TTL).build())
            .orElseThrow();
    CountingListener listener = new CountingListener();
    WriterFence patient =
        fence(DB.dataSource())
            .retryPolicy(
                new BusyRetryPolicy(10, Duration.ofSeconds(5), 1.0, Duration.ofSeconds(5), 0))
            .listener(listener)
            .build();
    AtomicInteger ran = new AtomicInteger();
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    AtomicBoolean stillInterrupted = new AtomicBoolean();
    Thread waiter =
        new Thread(
            () -> {
              try {
                patient.call(request("patient"), ran::incrementAndGet);
              } catch (Throwable t) {
                outcome.set(t);
              }
              stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
    waiter.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> listener.busyAttempts() >= 1);

    waiter.interrupt();
    waiter.join(10_000);

    assertThat(waiter.isAlive()).isFalse();
    assertThat(ran).hasValue(0);
    assertThat(stillInterrupted).isTrue();
    assertThat(outcome.get())
        .isInstanceOf(WriterFenceInterruptedException.class)
        .isNotInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("interrupted")
        .hasMessageContaining(name)
        .hasMessageContaining("did not run");
    assertThat(((WriterFenceException) outcome.get()).fenceName()).isEqualTo(name);
    assertThat(listener.unavailable()).as("an interrupt is not an unavailable database").isZero();
    assertThat(listener.busy()).isZero();
    assertThat(fence().release(holder)).isTrue();
  }
}
