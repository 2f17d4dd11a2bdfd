package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.testing.OtherWriter;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * Guard (C32, leaks): a fenced Flux subscribed from a non-blocking thread waits for its lease on
 * boundedElastic and is cancelled while it waits; the other writer then releases. No lease may stay
 * behind for the cancelled subscription, and its body never runs.
 */
class CancelDuringAcquireTest extends FenceTestSupport {

  static class Writer {
    final AtomicInteger runs = new AtomicInteger();

    @WriterFenced(value = "{0}", retryMaxWaitMillis = 3_000)
    public Flux<String> write(String fence) {
      return Flux.defer(
          () -> {
            runs.incrementAndGet();
            return Flux.just("a", "b");
          });
    }
  }

  @Test
  void aFluxCancelledWhileItsAcquireWaitsLeavesNoLeaseBehind() throws Throwable {
    Writer writer = new Writer();
    Method m = Writer.class.getMethod("write", String.class);
    try (WriterFence fence = fence();
        WriterFence other = fence()) {
      FenceLease held =
          OtherWriter.acquire(other, FenceRequest.builder(name).holderLabel("other").build());
      Flux<?> flux =
          (Flux<?>)
              FencedMethods.proceed(fence, m, new Object[] {name}, () -> m.invoke(writer, name));
      Disposable subscription = flux.subscribeOn(Schedulers.parallel()).subscribe();
      Thread.sleep(500); // let the acquire start waiting behind the other writer
      subscription.dispose();
      other.release(held);
      // The cancelled subscription's acquire must not end holding the row.
      await()
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(10))
          .until(() -> "free".equals(sql.state(name)));
      assertThat(writer.runs).as("body runs of the cancelled subscription").hasValue(0);
      assertThat(HeldFenceStack.held()).isEmpty();
    }
  }
}
