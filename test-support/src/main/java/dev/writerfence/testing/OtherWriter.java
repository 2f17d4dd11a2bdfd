package dev.writerfence.testing;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Leases of another writer, taken on a thread of their own that ends at once. A lease from {@code
 * acquire} or {@code tryAcquire} is a hold of the thread that took it, which that thread's fenced
 * calls of the same name and database and schema join, whatever fence object they use: a test whose
 * other writer took its lease on the test's thread would see its own calls join it instead of
 * finding the fence busy. Release the lease from any thread with {@link WriterFence#release}.
 */
public final class OtherWriter {
  private OtherWriter() {}

  /**
   * {@link WriterFence#tryAcquire} on a thread of its own.
   *
   * @param fence the other writer's fence; never {@code null}
   * @param request its request; never {@code null}
   * @return what {@code tryAcquire} answered
   * @throws RuntimeException what {@code tryAcquire} threw
   */
  public static Optional<FenceLease> tryAcquire(WriterFence fence, FenceRequest request) {
    return onItsOwnThread(() -> fence.tryAcquire(request));
  }

  /**
   * {@link WriterFence#acquire} on a thread of its own.
   *
   * @param fence the other writer's fence; never {@code null}
   * @param request its request; never {@code null}
   * @return the lease
   * @throws RuntimeException what {@code acquire} threw (busy, unavailable)
   */
  public static FenceLease acquire(WriterFence fence, FenceRequest request) {
    return onItsOwnThread(() -> fence.acquire(request));
  }

  private static <T> T onItsOwnThread(Callable<T> call) {
    FutureTask<T> task = new FutureTask<>(call);
    Thread thread = new Thread(task, "other-writer");
    thread.setDaemon(true);
    thread.start();
    try {
      return task.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while the other writer acquired", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new IllegalStateException(e.getCause());
    }
  }
}
