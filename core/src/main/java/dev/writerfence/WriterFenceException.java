package dev.writerfence;

/**
 * Base of the exceptions a fence raises when the guarded code must not run. Unchecked, so that a
 * fenced method keeps its own signature.
 */
public abstract class WriterFenceException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String fenceName;

  /**
   * @param fenceName the fence concerned; never {@code null}
   * @param message what happened, naming the fence
   * @param cause the underlying failure, or {@code null}
   */
  protected WriterFenceException(String fenceName, String message, Throwable cause) {
    super(message, cause);
    this.fenceName = fenceName;
  }

  /**
   * @return the fence name the failed request was for; never {@code null}
   */
  public String fenceName() {
    return fenceName;
  }
}
