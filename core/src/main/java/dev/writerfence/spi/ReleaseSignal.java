package dev.writerfence.spi;

/**
 * Tells queued writers that a lease was released while writers waited, so the head of a queue can
 * poll at once instead of on its schedule: on the lease row, {@code LISTEN writer_fence_release} on
 * a connection of its own. A signal is a hint, never a grant: a writer still polls the queue, and a
 * missed or spurious signal costs only time.
 *
 * <p>Signals may be for any fence name of the store: a signal for another name costs a waiter one
 * poll. Implementations are thread-safe.
 */
public interface ReleaseSignal extends AutoCloseable {

  /**
   * The count of signals received so far, to pass to {@link #awaitAfter}: taken before a poll, so
   * that a release after the poll's answer is not missed.
   *
   * @return a number that grows with every signal received
   */
  long seen();

  /**
   * Waits until a signal after {@code seen} arrives, or the timeout passes. Returns at once when
   * one has arrived already, and when the signal cannot be heard now (its connection is down): then
   * the caller polls on its schedule.
   *
   * @param seen what {@link #seen()} answered before the caller's last poll
   * @param timeoutNanos the longest wait, in nanoseconds
   * @return {@code true} when a signal after {@code seen} arrived (or none can be heard); {@code
   *     false} when the timeout passed
   * @throws InterruptedException when interrupted while waiting
   */
  boolean awaitAfter(long seen, long timeoutNanos) throws InterruptedException;

  /** Stops listening and gives back its connection; later waits return at once. Never throws. */
  @Override
  void close();
}
