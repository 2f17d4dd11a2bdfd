package dev.writerfence.audit;

/**
 * A storage write was refused because the calling thread held no valid lease on the required fence,
 * and the agent runs in enforce mode ({@code writer-fence.audit.mode=enforce}). Thrown before any
 * byte of the write left the process. The class lives in the bootstrap class loader, so an
 * application can catch it by this name in every class loader.
 */
public class UnfencedWriteException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** The storage client id, for example {@code aws-s3-v2}. */
  private final String client;

  /** The operation, for example {@code putObject}. */
  private final String operation;

  /** The bucket or volume, or {@code null} when unknown. */
  private final String bucket;

  /** The object key or path, or {@code null} when unknown. */
  private final String key;

  /**
   * The first application stack frame, for example {@code
   * com.acme.Uploader.upload(Uploader.java:42)}.
   */
  private final String callSite;

  /**
   * @param client the storage client id; never {@code null}
   * @param operation the operation; never {@code null}
   * @param bucket the bucket or volume; may be {@code null}
   * @param key the object key or path; may be {@code null}
   * @param callSite the first application stack frame; may be {@code null} when none was found
   * @param requiredFence the fence name that had to be held, or {@code null} for any
   */
  public UnfencedWriteException(
      String client,
      String operation,
      String bucket,
      String key,
      String callSite,
      String requiredFence) {
    super(
        "writer-fence: refused unfenced write "
            + client
            + " "
            + operation
            + " bucket="
            + bucket
            + " key="
            + key
            + " at "
            + (callSite == null ? "(no application frame)" : callSite)
            + ": this thread holds no valid lease on "
            + (requiredFence == null ? "any fence" : "fence '" + requiredFence + "'")
            + " (writer-fence.audit.mode=enforce)");
    this.client = client;
    this.operation = operation;
    this.bucket = bucket;
    this.key = key;
    this.callSite = callSite;
  }

  /**
   * @return the storage client id; never {@code null}
   */
  public String client() {
    return client;
  }

  /**
   * @return the operation; never {@code null}
   */
  public String operation() {
    return operation;
  }

  /**
   * @return the bucket or volume, or {@code null} when unknown
   */
  public String bucket() {
    return bucket;
  }

  /**
   * @return the object key or path, or {@code null} when unknown
   */
  public String key() {
    return key;
  }

  /**
   * @return the first application stack frame, or {@code null} when none was found
   */
  public String callSite() {
    return callSite;
  }
}
