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
  private final transient Duration expectedWait;

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
    this(fenceName, attempts, holderLabel, holderExpiresAt, waited, budget, place, waiters, null);
  }

  /**
   * A busy answer of a caller that waited in the fence's queue, and gave up before its budget ended
   * when {@code expectedWait} is given: at the queue's pace it could not be served in time ({@code
   * queue.busy-early}).
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
   * @param expectedWait the wait expected at the queue's pace when it gave up early, or {@code
   *     null} when it waited out its budget
   */
  public WriterFenceBusyException(
      String fenceName,
      int attempts,
      String holderLabel,
      Instant holderExpiresAt,
      Duration waited,
      Duration budget,
      int place,
      int waiters,
      Duration expectedWait) {
    super(
        fenceName,
        expectedWait == null
            ? message(
                fenceName, attempts, holderLabel, holderExpiresAt, waited, budget, place, waiters)
            : earlyMessage(
                fenceName,
                attempts,
                holderLabel,
                holderExpiresAt,
                waited,
                budget,
                place,
                waiters,
                expectedWait),
        null);
    this.expectedWait = expectedWait;
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

  /**
   * "is busy and gave up early after 3 attempts in 0.4s: number 12 of 12 in the queue of 'corpus',
   * about 11 s at the current pace, budget 3 s …".
   */
  private static String earlyMessage(
      String name,
      int attempts,
      String label,
      Instant expiresAt,
      Duration waited,
      Duration budget,
      int place,
      int waiters,
      Duration expected) {
    return "writer-fence: fence '"
        + name
        + "' is busy and gave up early after "
        + attempts
        + (attempts == 1 ? " attempt" : " attempts")
        + (waited == null ? "" : " in " + text(waited))
        + ": number "
        + place
        + " of "
        + waiters
        + " in the queue of '"
        + name
        + "', about "
        + spaced(expected)
        + " at the current pace"
        + (budget == null ? "" : ", budget " + spaced(budget))
        + ", so it would not be served in time (to wait anyway raise writer-fence.retry.max-wait,"
        + " or the annotation's retryMaxWaitMillis, or set writer-fence.queue.busy-early=false)"
        + ": held by "
        + (label == null ? "an unknown holder" : "'" + label + "'")
        + (expiresAt == null ? "" : " until " + expiresAt + " (database clock)")
        + "; the guarded code did not run";
  }

  /** "300 ms", "3 s", "2.5 s", "11 s": whole seconds from 10 s, and whole ones as they are. */
  private static String spaced(Duration d) {
    long ms = d.toMillis();
    if (ms < 1000) {
      return ms + " ms";
    }
    if (ms % 1000 == 0 || ms >= 10_000) {
      return Math.round(ms / 1000.0) + " s";
    }
    return String.format(java.util.Locale.ROOT, "%.1f s", ms / 1000.0);
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
   * @return the wait expected at the queue's pace when the caller gave up before its budget ended
   *     ({@code queue.busy-early}); empty when it waited out its budget, or did not queue
   */
  public Optional<Duration> expectedWait() {
    return Optional.ofNullable(expectedWait);
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
