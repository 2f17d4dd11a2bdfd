package dev.writerfence.aspectj;

import dev.writerfence.annotation.WriterFenced;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writers of one bucket per argument ({@code "corpus:{0}"}). Woven at compile time: ajc compiles
 * this module's test sources with the aspect from the main sources.
 */
class CorpusWriter {
  final AtomicInteger bodyRuns = new AtomicInteger();
  volatile CompletableFuture<String> lastStage;

  @WriterFenced(value = "corpus:{0}", holder = "write-back")
  public Observation write(String bucket) {
    bodyRuns.incrementAndGet();
    return Observation.inside("corpus:" + bucket);
  }

  @WriterFenced(value = "corpus:{0}", holder = "pull_sync")
  public List<Observation> pullSync(String bucket) {
    bodyRuns.incrementAndGet();
    Observation outer = Observation.inside("corpus:" + bucket);
    Observation walk = walk(bucket);
    return List.of(outer, walk);
  }

  @WriterFenced(value = "corpus:{0}", holder = "walk")
  public Observation walk(String bucket) {
    bodyRuns.incrementAndGet();
    return Observation.inside("corpus:" + bucket);
  }

  @WriterFenced(
      value = "corpus:{0}",
      holder = "impatient",
      retryMaxAttempts = 3,
      retryInitialIntervalMillis = 20,
      retryMaxIntervalMillis = 40)
  public void writeWithFewRetries(String bucket) {
    bodyRuns.incrementAndGet();
  }

  @WriterFenced(value = "corpus:{0}:{1}", holder = "two-args")
  public void writeObject(String bucket, String key) {
    bodyRuns.incrementAndGet();
  }

  /** Starts an upload that completes {@code delay} later, on another thread. */
  @WriterFenced(value = "corpus:{0}", holder = "async-upload")
  public CompletableFuture<String> uploadLater(String bucket, Duration delay) {
    bodyRuns.incrementAndGet();
    CompletableFuture<String> stage =
        CompletableFuture.supplyAsync(
            () -> "uploaded " + bucket,
            CompletableFuture.delayedExecutor(delay.toMillis(), TimeUnit.MILLISECONDS));
    lastStage = stage;
    return stage;
  }
}
