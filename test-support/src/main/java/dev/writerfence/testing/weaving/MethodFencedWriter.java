package dev.writerfence.testing.weaving;

import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A writer fenced by annotations on its methods: the fence name is the first argument. The weaving
 * mode under test fences it; the expectations pass the body that runs inside the method.
 */
public class MethodFencedWriter {
  /** The holder label of every lease the writers of this package take. */
  public static final String HOLDER = "weaving-contract";

  /** The priority of {@link #writePrioritized}. */
  public static final int PRIORITY = 42;

  /**
   * The TTL of {@link #writeInterruptedOnLoss}, in seconds: short, so that its renewal (every third
   * of it) finds a takeover soon.
   */
  public static final int SHORT_TTL_SECONDS = 3;

  /** Creates the writer; a container may proxy it. */
  public MethodFencedWriter() {}

  /**
   * Runs {@code body} under the fence {@code fenceName}.
   *
   * @param fenceName the fence name; {@code null} or an invalid name fails before any acquire
   * @param body what runs inside the method
   */
  @WriterFenced(value = "{0}", holder = HOLDER)
  public void write(String fenceName, Runnable body) {
    body.run();
  }

  /**
   * Runs {@code body} under the fence {@code fenceName}; its thread is interrupted if the lease is
   * lost while it runs ({@code interruptOnLoss}).
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   */
  @WriterFenced(
      value = "{0}",
      holder = HOLDER,
      ttlSeconds = SHORT_TTL_SECONDS,
      interruptOnLoss = true)
  public void writeInterruptedOnLoss(String fenceName, Runnable body) {
    body.run();
  }

  /**
   * Starts {@code body} under the fence {@code fenceName}; the lease is kept until the stage it
   * returns completes.
   *
   * @param fenceName the fence name
   * @param body starts the work and returns its stage
   * @return the stage the advice hands back (it completes after the release)
   */
  @WriterFenced(value = "{0}", holder = HOLDER)
  public CompletionStage<String> writeAsync(
      String fenceName, Supplier<CompletionStage<String>> body) {
    return body.get();
  }

  /**
   * Runs {@code body} under the fence {@code fenceName}, or skips it when the fence is busy (one
   * attempt, no wait).
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   */
  @WriterFenced(value = "{0}", holder = HOLDER, onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
  public void writeOrSkip(String fenceName, Runnable body) {
    body.run();
  }

  /**
   * Returns what {@code body} gives under the fence, or {@code null} when the fence is busy.
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   * @return what {@code body} returned; {@code null} when skipped
   */
  @WriterFenced(value = "{0}", holder = HOLDER, onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
  public String readOrSkip(String fenceName, Supplier<String> body) {
    return body.get();
  }

  /**
   * Returns what {@code body} gives under the fence, or an empty {@code Optional} when the fence is
   * busy.
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   * @return what {@code body} returned; empty when skipped
   */
  @WriterFenced(value = "{0}", holder = HOLDER, onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
  public Optional<String> findOrSkip(String fenceName, Supplier<String> body) {
    return Optional.of(body.get());
  }

  /**
   * Starts {@code body} under the fence, or returns a completed stage of {@code null} when the
   * fence is busy.
   *
   * @param fenceName the fence name
   * @param body starts the work and returns its stage
   * @return the stage the advice hands back; completed with {@code null} when skipped
   */
  @WriterFenced(value = "{0}", holder = HOLDER, onBusy = OnBusy.SKIP, retryMaxAttempts = 1)
  public CompletionStage<String> writeAsyncOrSkip(
      String fenceName, Supplier<CompletionStage<String>> body) {
    return body.get();
  }

  /**
   * Runs {@code body} under the fence {@code fenceName} with priority {@link #PRIORITY}, waiting up
   * to 30 s in the fence's queue.
   *
   * @param fenceName the fence name
   * @param body what runs inside the method
   */
  @WriterFenced(value = "{0}", holder = HOLDER, priority = PRIORITY, retryMaxWaitMillis = 30_000)
  public void writePrioritized(String fenceName, Runnable body) {
    body.run();
  }
}
