package dev.writerfence;

/**
 * The thread was interrupted while a fenced call waited to try the acquire again (busy backoff, or
 * the wait after a transient database error). The guarded code did not run; no lease is held. The
 * thread's interrupt flag is still set, so the caller's own interruption handling sees it.
 *
 * <p>Not an unavailable database: {@link FenceListener#unavailable} is not called for it.
 */
public final class WriterFenceInterruptedException extends WriterFenceException {
  private static final long serialVersionUID = 1L;

  /**
   * @param fenceName the fence that was being acquired; never {@code null}
   * @param message what was interrupted, naming the fence
   * @param cause what the retry's interrupted wait threw, or {@code null}
   */
  public WriterFenceInterruptedException(String fenceName, String message, Throwable cause) {
    super(fenceName, message, cause);
  }
}
