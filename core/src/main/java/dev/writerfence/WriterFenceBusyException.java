package dev.writerfence;

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
    super(fenceName, message(fenceName, attempts, holderLabel, holderExpiresAt), null);
    this.attempts = attempts;
    this.holderLabel = holderLabel;
    this.holderExpiresAt = holderExpiresAt;
  }

  private static String message(String name, int attempts, String label, Instant expiresAt) {
    return "writer-fence: fence '"
        + name
        + (attempts == 0
            ? "' is busy: its turn in this process stayed with another acquire of the same fence"
                + " (another thread's, or this thread's own not yet released) through the wait;"
            : "' is busy after " + attempts + (attempts == 1 ? " attempt" : " attempts") + ":")
        + " held by "
        + (label == null ? "an unknown holder" : "'" + label + "'")
        + (expiresAt == null ? "" : " until " + expiresAt + " (database clock)")
        + "; the guarded code did not run";
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
