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

  /** How the front of a queue learns of a release, as operators see it. */
  enum Mode {
    /** Not known yet: the first listening has not proved that notifications arrive. */
    PENDING,
    /** Notifications were proved to arrive: the front waits for them and polls as a safety net. */
    NOTIFIED,
    /** Notifications did not arrive (a transaction pooler swallows them): the front polls. */
    POLLED;

    /**
     * @return the mode's name as {@code status}, metrics and logs show it: {@code pending}, {@code
     *     notified} or {@code polled}
     */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A direct connection to PostgreSQL for the listener alone ({@code queue.listen-url}), so that a
   * process whose statements go through a transaction pooler is still woken.
   *
   * @param url a {@code jdbc:postgresql:} URL, never {@code null}
   * @param username the role; {@code null}: the URL's {@code user} parameter or the driver's
   *     default
   * @param password the password; {@code null}: the URL's {@code password} parameter or none
   */
  record Direct(String url, String username, String password) {
    /**
     * @throws NullPointerException when {@code url} is null
     */
    public Direct {
      java.util.Objects.requireNonNull(url, "url");
    }

    /** The URL and role only: the password is never printed. */
    @Override
    public String toString() {
      return url + (username == null ? "" : " as " + username);
    }
  }

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

  /**
   * What this signal has learnt about notifications so far: a signal that did not prove them (its
   * probe got no answer) is {@link Mode#POLLED} for as long as it stays open.
   *
   * @return the mode, never {@code null}; {@link Mode#NOTIFIED} by default
   */
  default Mode mode() {
    return Mode.NOTIFIED;
  }

  /**
   * Whether a release would be heard now: notifications were proved and the listening connection is
   * up. When not, the front of a queue polls on its schedule and {@link #awaitAfter} returns at
   * once.
   *
   * @return {@code true} when waiting for a signal is worth it now; {@code true} by default
   */
  default boolean hearing() {
    return true;
  }

  /** Stops listening and gives back its connection; later waits return at once. Never throws. */
  @Override
  void close();
}
