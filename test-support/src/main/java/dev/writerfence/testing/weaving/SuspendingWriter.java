package dev.writerfence.testing.weaving;

import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;

/**
 * Drives a Kotlin writer whose fenced methods are {@code suspend} functions (case C32): each method
 * here launches one coroutine on {@code Dispatchers.Default} that calls one fenced suspend function
 * of the fence name given, and answers its outcome as a future; cancelling the future cancels the
 * coroutine. The Kotlin writer lives in each weaving mode's tests, which compile Kotlin; the
 * weaving mode under test fences it.
 */
public interface SuspendingWriter {
  /**
   * A fenced suspend function that suspends ({@code delay}), then runs {@code work} in {@code
   * withContext(Dispatchers.IO)}, on another thread than the one it was called on.
   *
   * @param fenceName the fence name
   * @param work the work, on a thread of {@code Dispatchers.IO}
   * @return what the work returned, once the function resumed its caller
   */
  CompletableFuture<Long> write(String fenceName, Callable<Long> work);

  /**
   * A fenced suspend function that suspends, resumes on {@code Dispatchers.IO} and throws {@code
   * IllegalStateException("failed inside")}.
   *
   * @param fenceName the fence name
   * @return completed exceptionally with that exception
   */
  CompletableFuture<Long> fail(String fenceName);

  /**
   * A fenced suspend function that runs {@code started} on {@code Dispatchers.IO} and then suspends
   * until its coroutine is cancelled.
   *
   * @param fenceName the fence name
   * @param started told when the function runs
   * @return never completed but by cancelling it
   */
  CompletableFuture<Long> hang(String fenceName, Runnable started);

  /**
   * A fenced suspend function that, in {@code withContext(Dispatchers.IO)}, calls the fenced
   * suspend function of {@link #write} with the same fence name, through the weaving mode.
   *
   * @param fenceName the fence name
   * @param work the inner function's work
   * @return what the work returned
   */
  CompletableFuture<Long> nested(String fenceName, Callable<Long> work);
}
