package dev.writerfence.aspectj;

import static dev.writerfence.aspectj.TestFence.EVENTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A fenced method that returns a {@code CompletableFuture} keeps its lease until it completes. */
class CompletionStageTest {
  private static WriterFence otherWriter;
  private final CorpusWriter writer = new CorpusWriter();

  @BeforeAll
  static void installFence() {
    TestFence.install();
    otherWriter = TestFence.otherWriter();
    TestFence.assertWovenAtCompileTime(CorpusWriter.class);
  }

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

    // Another writer tries every 100 ms. Each try first notes whether the upload had completed:
    // a lease won while the upload was still running fails the test at once.
    AtomicInteger busyAnswers = new AtomicInteger();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              boolean uploadDoneBefore = upload.isDone();
              Optional<FenceLease> other =
                  otherWriter.tryAcquire(name, "other-writer", Duration.ofSeconds(30));
              if (other.isEmpty()) {
                busyAnswers.incrementAndGet();
                return false;
              }
              otherWriter.release(other.get());
              if (!uploadDoneBefore) {
                throw new AssertionError("the other writer acquired while the upload was running");
              }
              return true;
            });
    long heldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(heldMillis).as("the lease was held about 3 s").isGreaterThanOrEqualTo(2_900);
    assertThat(busyAnswers.get())
        .as("the other writer was busy throughout")
        .isGreaterThanOrEqualTo(20);
    assertThat(result.get(1, TimeUnit.SECONDS)).isEqualTo("uploaded " + bucket);
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
    FenceLease next = otherWriter.tryAcquire(name, "next", Duration.ofSeconds(30)).orElseThrow();
    otherWriter.release(next);
  }
}
