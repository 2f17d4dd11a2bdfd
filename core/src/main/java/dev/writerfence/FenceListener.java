package dev.writerfence;

import java.time.Duration;
import java.util.Optional;

/**
 * Receives the outcome of every acquire and release, and every loss of a held lease, for metrics
 * and logs. Every method has a no-op default. Called on the thread that made the call ({@link
 * #lost} on the renewal thread); an implementation must be fast and must not throw. Whatever it
 * throws is logged and ignored, except a {@link VirtualMachineError}, which propagates to the
 * caller; one thrown by {@link #acquired} first releases the new lease, and the guarded code does
 * not run.
 */
public interface FenceListener {

  /**
   * A lease was acquired.
   *
   * @param lease the new lease
   * @param attempts acquire attempts it took, at least 1
   * @param waited time from the start of the call to the lease, its wait for the fence name's turn
   *     among this fence's threads and in the queue included (JVM monotonic clock): the time to win
   */
  default void acquired(FenceLease lease, int attempts, Duration waited) {}

  /**
   * One acquire attempt found the fence busy; another attempt may follow.
   *
   * @param request the request
   * @param attempt the number of the attempt that was busy, from 1
   */
  default void busyAttempt(FenceRequest request, int attempt) {}

  /**
   * The fence stayed busy through the last attempt; the guarded code will not run.
   *
   * @param request the request
   * @param attempts acquire statements sent; 0 when the name's turn in this process stayed with
   *     other threads of the same fence through the whole wait
   * @param holder the holder seen after the last attempt, if any
   */
  default void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {}

  /**
   * The database could not confirm the lease; the guarded code will not run. Not called when the
   * thread was interrupted while waiting to retry ({@link WriterFenceInterruptedException}).
   *
   * @param request the request
   * @param failure what the caller is given
   */
  default void unavailable(FenceRequest request, WriterFenceUnavailableException failure) {}

  /**
   * A release completed.
   *
   * @param lease the released lease
   * @param freed {@code true} when the row was freed; {@code false} when another holder had it (the
   *     lease had expired and was taken over) or it was already free
   */
  default void released(FenceLease lease, boolean freed) {}

  /**
   * A held lease was lost: a renewal found it expired or taken over, or no renewal could confirm it
   * within its TTL (the database was unreachable or too slow, or the process was paused). Called
   * once per lost lease, on the fence's {@code writer-fence-renewal} thread, never for a lease that
   * was released first, after the lease's own {@link FenceLease#onLost} callbacks. The guarded code
   * may still be running: it learns of the loss from {@link FenceLease#checkValid()}, from those
   * callbacks, or from an interrupt it asked for ({@link FenceRequest.Builder#interruptOnLoss}).
   * The lease is still released when its call ends (harmless: another holder's row is never freed).
   *
   * @param lease the lost lease; {@link FenceLease#isValid()} is already {@code false}
   * @param reason why, in words
   */
  default void lost(FenceLease lease, String reason) {}
}
