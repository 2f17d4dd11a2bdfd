package dev.writerfence;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * Another live holder kept the lease through every acquire attempt. The guarded code did not run;
 * the caller must not write.
 *
 * <p>Busy is an expected outcome of a fence, not a fault: retry later, or skip this pass.
 */
public final class WriterFenceBusyException extends WriterFenceException {
  private static final long serialVersionUID = 1L;

  private final int attempts;
  private final String holderLabel;
  private final transient Instant holderExpiresAt;
  private final transient Duration waited;
  private final int place;
  private final int waiters;

  /**
   * @param fenceName the busy fence; never {@code null}
   * @param attempts how many acquire statements were sent; 0 when the fence name's turn in this
   *     process (ADR 16) stayed with other threads of the same {@code WriterFence} through the
   *     whole wait, holding the lease or retrying it against another process, or when this thread
   *     holds the name already with an acquire of its own
   * @param holderLabel label of the holder seen after the last attempt, or {@code null} if unknown
   * @param holderExpiresAt expiry of that holder's lease (database clock), or {@code null}
   */
  public WriterFenceBusyException(
      String fenceName, int attempts, String holderLabel, Instant holderExpiresAt) {
    this(fenceName, attempts, holderLabel, holderExpiresAt, null, null);
  }

  /**
   * A busy answer that says how long the caller waited and against which budget.
   *
   * @param fenceName the busy fence; never {@code null}
   * @param attempts as in {@link #WriterFenceBusyException(String, int, String, Instant)}
   * @param holderLabel label of the holder seen after the last attempt, or {@code null} if unknown
   * @param holderExpiresAt expiry of that holder's lease (database clock), or {@code null}
   * @param waited how long the call waited in all, turns in this process included, or {@code null}
   *     if not measured
   * @param budget the retry policy's scheduled waits ({@code BusyRetryPolicy.scheduledWait()}), or
   *     {@code null} if not known
   */
  public WriterFenceBusyException(
      String fenceName,
      int attempts,
      String holderLabel,
      Instant holderExpiresAt,
      Duration waited,
      Duration budget) {
    this(fenceName, attempts, holderLabel, holderExpiresAt, waited, budget, 0, 0);
  }

  /**
   * A busy answer of a caller that waited in the fence's queue of waiters.
   *
   * @param fenceName the busy fence; never {@code null}
   * @param attempts as in {@link #WriterFenceBusyException(String, int, String, Instant)}
   * @param holderLabel label of the holder seen after the last attempt, or {@code null} if unknown
   * @param holderExpiresAt expiry of that holder's lease (database clock), or {@code null}
   * @param waited how long the call waited in all, turns in this process included, or {@code null}
   *     if not measured
   * @param budget how long it was allowed to wait ({@code BusyRetryPolicy.budget()}), or {@code
   *     null} if not known
   * @param place the caller's place in the queue at its last poll, 1 for the head; 0 when it did
   *     not queue
   * @param waiters the live tickets of the fence at that poll, the caller's own included; 0 when it
   *     did not queue
   */
  public WriterFenceBusyException(
      String fenceName,
      int attempts,
      String holderLabel,
      Instant holderExpiresAt,
      Duration waited,
      Duration budget,
      int place,
      int waiters) {
    super(
        fenceName,
        message(fenceName, attempts, holderLabel, holderExpiresAt, waited, budget, place, waiters),
        null);
    this.attempts = attempts;
    this.holderLabel = holderLabel;
    this.holderExpiresAt = holderExpiresAt;
    this.waited = waited;
    this.place = place;
    this.waiters = waiters;
  }

  private static String message(
      String name,
      int attempts,
      String label,
      Instant expiresAt,
      Duration waited,
      Duration budget,
      int place,
      int waiters) {
    return "writer-fence: fence '"
        + name
        + (attempts == 0
            ? "' is busy: its turn in this process stayed with another acquire of the same fence"
                + " (another thread's, or this thread's own not yet released) through the wait"
            : "' is busy after " + attempts + (attempts == 1 ? " attempt" : " attempts"))
        + waitedText(waited, budget)
        + (place > 0 ? ", number " + place + " of " + waiters + " in its queue" : "")
        + ": held by "
        + (label == null ? "an unknown holder" : "'" + label + "'")
        + (expiresAt == null ? "" : " until " + expiresAt + " (database clock)")
        + "; the guarded code did not run";
  }

  /** " in 3.2s (budget …; the settings that change it)", or nothing when not measured. */
  private static String waitedText(Duration waited, Duration budget) {
    if (waited == null) {
      return "";
    }
    return " in "
        + text(waited)
        + (budget == null ? "" : " against a budget of " + text(budget))
        + " (to wait longer raise writer-fence.retry.max-wait, or the annotation's"
        + " retryMaxWaitMillis)";
  }

  private static String text(Duration d) {
    long ms = d.toMillis();
    return ms < 1000 ? ms + "ms" : String.format(java.util.Locale.ROOT, "%.1fs", ms / 1000.0);
  }

  /**
   * @return how long the call waited in all before giving up, if measured
   */
  public Optional<Duration> waited() {
    return Optional.ofNullable(waited);
  }

  /**
   * @return the caller's place in the fence's queue at its last poll, 1 for the head; 0 when it did
   *     not queue (a try, a store without a queue, or busy before its first ticket)
   */
  public int place() {
    return place;
  }

  /**
   * @return the fence's live tickets at that poll, the caller's own included; 0 when it did not
   *     queue
   */
  public int waiters() {
    return waiters;
  }

  /**
   * @return how many acquire statements were sent; 0 when the fence name's turn in this process
   *     stayed with another acquire of the same fence through the whole wait
   */
  public int attempts() {
    return attempts;
  }

  /**
   * @return the label of the holder seen after the last attempt, if it was still held then
   */
  public Optional<String> holderLabel() {
    return Optional.ofNullable(holderLabel);
  }

  /**
   * @return when that holder's lease expires (database clock), if known
   */
  public Optional<Instant> holderExpiresAt() {
    return Optional.ofNullable(holderExpiresAt);
  }
}
