package dev.writerfence.aspectj;

import static dev.writerfence.aspectj.TestFence.EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A fenced method that returns a {@code CompletableFuture} keeps its lease until it completes. */
class CompletionStageTest extends CompileTimeWovenTest {

  @Test
  void C13_completableFutureKeepsLeaseUntilComplete() throws Exception {
    String bucket = TestFence.uniqueId("c13");
    String name = "corpus:" + bucket;
    long started = System.nanoTime();

    CompletableFuture<String> result = writer.uploadLater(bucket, Duration.ofSeconds(3));
    CompletableFuture<String> upload = writer.lastStage;

    assertThat(result).as("the method returned before its upload completed").isNotDone();
    assertThat(WriterFence.current(name)).as("the calling thread's stack is clean").isEmpty();
    assertThat(EVENTS.acquires(name)).isEqualTo(1);

    // Another writer tries every 100 ms. The lease is released only after the upload completes,
    // so once the other writer wins, the upload must already be done: if not, the lease was let go
    // early, and the test fails at once.
    AtomicInteger busyAnswers = new AtomicInteger();
    AtomicLong lastBusyMillis = new AtomicLong();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              Optional<FenceLease> other =
                  otherWriter.tryAcquire(
                      FenceRequest.builder(name)
                          .holderLabel("other-writer")
                          .ttl(Duration.ofSeconds(30))
                          .build());
              if (other.isEmpty()) {
                busyAnswers.incrementAndGet();
                lastBusyMillis.set(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
                return false;
              }
              boolean uploadDone = upload.isDone();
              otherWriter.release(other.get());
              if (!uploadDone) {
                throw new AssertionError("the other writer acquired while the upload was running");
              }
              return true;
            });
    long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(heldMillis).as("the lease was held about 3 s").isGreaterThanOrEqualTo(2_900);
    assertThat(busyAnswers.get()).as("busy answers to the other writer").isGreaterThanOrEqualTo(3);
    assertThat(lastBusyMillis.get())
        .as("the other writer was still busy late in the 3 s")
        .isGreaterThanOrEqualTo(2_000);
    assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("uploaded " + bucket);
    assertThat(EVENTS.acquires(name)).as("the method's own acquire only").isEqualTo(1);
    assertThat(EVENTS.releases(name)).isEqualTo(1);
    assertThat(writer.bodyRuns).hasValue(1);
  }

  @Test
  void returnedFutureCompletesOnlyAfterTheRelease() throws Exception {
    String bucket = TestFence.uniqueId("async-release");
    String name = "corpus:" + bucket;

    CompletableFuture<String> result = writer.uploadLater(bucket, Duration.ofMillis(300));
    assertThat(result.get(10, TimeUnit.SECONDS)).isEqualTo("uploaded " + bucket);

    // No waiting: completion of the returned future means the row is already free.
    assertThat(TestFence.leaseRow(name).orElseThrow().held()).isFalse();
    assertThat(EVENTS.releases(name)).isEqualTo(1);
    FenceLease next =
        otherWriter
            .tryAcquire(
                FenceRequest.builder(name).holderLabel("next").ttl(Duration.ofSeconds(30)).build())
            .orElseThrow();
    otherWriter.release(next);
  }
}
