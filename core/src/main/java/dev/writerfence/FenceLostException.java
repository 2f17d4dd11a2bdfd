package dev.writerfence;

/**
 * A lease is no longer held: a renewal found it expired or taken over, no renewal could confirm it
 * within its TTL, or it was released. Thrown by {@link FenceLease#checkValid()} so that a writer
 * stops before its next storage write; another holder may already write with a higher fencing
 * token. Also what a fenced call that asked to be interrupted on loss ({@link
 * FenceRequest.Builder#interruptOnLoss}) ends with when its lease was lost while it ran, with what
 * the guarded code threw as its cause; and the error signal of a lazy result's subscription that
 * asked for it, cancelled on the loss of its lease.
 */
public final class FenceLostException extends WriterFenceException {
  private static final long serialVersionUID = 1L;

  private final long fencingToken;
  private final String reason;

  /**
   * @param lease the lease that is no longer held; never {@code null}
   * @param reason why, in words
   */
  public FenceLostException(FenceLease lease, String reason) {
    this(lease, reason, null);
  }

  /**
   * @param lease the lease that is no longer held; never {@code null}
   * @param reason why, in words
   * @param cause what the guarded code threw when its thread was interrupted for the loss, or
   *     {@code null}
   */
  public FenceLostException(FenceLease lease, String reason, Throwable cause) {
    super(
        lease.fenceName(),
        "writer-fence: fence '"
            + lease.fenceName()
            + "' ("
            + FencingTokens.inWords(lease.rawFencingToken())
            + ", holder '"
            + lease.holderLabel()
            + "') is no longer held: "
            + reason
            + "; do not write under it",
        cause);
    this.fencingToken = lease.rawFencingToken();
    this.reason = reason;
  }

  /**
   * The same loss as another copy of writer-fence in this JVM (the agent's relocated one) reported
   * it, so that the application can catch its own class: the agent makes one with the values and
   * message of its own exception.
   *
   * @param fenceName the fence name; never {@code null}
   * @param fencingToken the fencing token of the lease that is no longer held
   * @param reason why, in words
   * @param message the whole message, as the other copy wrote it
   * @param cause the cause, or {@code null}
   */
  public FenceLostException(
      String fenceName, long fencingToken, String reason, String message, Throwable cause) {
    super(fenceName, message, cause);
    this.fencingToken = fencingToken;
    this.reason = reason;
  }

  /**
   * @return the fencing token of the lease that is no longer held; {@link FencingTokens#NONE} when
   *     its backend issued none
   */
  public long fencingToken() {
    return fencingToken;
  }

  /**
   * @return why the lease is no longer held
   */
  public String reason() {
    return reason;
  }
}
