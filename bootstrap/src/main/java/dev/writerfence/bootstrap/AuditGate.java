package dev.writerfence.bootstrap;

/**
 * The one check every audited storage write passes through: advice inlined into a storage client
 * (in whatever class loader that client lives) calls {@link #enter} before the write and {@link
 * #exit} after it. The class uses the JDK only and lives in the bootstrap class loader, so the
 * inlined advice links against it from any class loader, and it reads the same {@link
 * HeldFenceStack} that core pushes to.
 *
 * <h2>Contract for client instrumentations</h2>
 *
 * <ul>
 *   <li>Call {@code enter} on method entry of every storage operation that is not a read, and
 *       {@code exit} on every way out of that method (Byte Buddy: {@code @Advice.OnMethodExit(
 *       onThrowable = Throwable.class)}) but only when {@code enter} returned normally. When {@code
 *       enter} throws, the method body must not run: the write is refused before any byte leaves.
 *   <li>Calls nest per thread: only the outermost {@code enter} of a thread is judged, so a wrapper
 *       client calling its delegate, an overload calling another, or a transfer calling {@code
 *       putObject} on the same thread count once per logical write. Work the library continues on
 *       its own threads (multipart parts, async continuations) has no application frame on its
 *       stack; the sink treats such a write as part of the logical write already judged on the
 *       calling thread.
 *   <li>"Fenced" means: this thread holds a valid lease ({@link HeldFenceStack#holds}) on the fence
 *       name the sink requires for that client, or on any name. A lost lease is not held.
 *   <li>With no sink installed (audit off, or no agent), both methods cost a thread-local counter
 *       and nothing else.
 * </ul>
 *
 * <p>Nothing here allocates for a fenced write; the sink (installed by the agent) does the costly
 * work (stack walk, report) only for unfenced ones, and for fenced ones only when it draws the
 * writer map ({@link Sink#mapsFencedWrites()}).
 */
public final class AuditGate {
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);
  private static volatile Sink sink;

  private AuditGate() {}

  /**
   * Where unfenced writes go; installed by the agent. Implementations must be thread-safe and must
   * not call back into storage clients that are audited.
   */
  public interface Sink {
    /**
     * @param client the storage client id, for example {@code aws-s3-v2}; never {@code null}
     * @return the fence name a write through that client must hold, or {@code null} for any name
     */
    String requiredFence(String client);

    /**
     * Called for a write made by a thread that holds no valid lease on the required fence.
     *
     * @param client the storage client id; never {@code null}
     * @param operation the operation, for example {@code putObject}; never {@code null}
     * @param target what the advice had at hand that names the bucket and key (a request object, a
     *     path...) for the agent to read when it reports; may be {@code null}
     * @param bucket the bucket (or volume) when the advice knows it as text, else {@code null}
     * @param key the object key (or path) when the advice knows it as text, else {@code null}
     * @throws RuntimeException (normally {@code dev.writerfence.audit.UnfencedWriteException}) to
     *     refuse the write, in enforce mode
     */
    void unfenced(String client, String operation, Object target, String bucket, String key);

    /**
     * @return whether {@link #fenced} is to be called for fenced writes (the writer map); when
     *     {@code false}, a fenced write costs the gate nothing beyond finding its hold
     */
    default boolean mapsFencedWrites() {
      return false;
    }

    /**
     * Called for a write made by a thread that holds a valid lease on the required fence, when
     * {@link #mapsFencedWrites()}. Must not throw.
     *
     * @param client the storage client id; never {@code null}
     * @param operation the operation; never {@code null}
     * @param target as for {@link #unfenced}; may be {@code null}
     * @param bucket as for {@link #unfenced}; may be {@code null}
     * @param key as for {@link #unfenced}; may be {@code null}
     * @param hold the hold it ran under, the innermost on the required name; never {@code null}
     */
    default void fenced(
        String client,
        String operation,
        Object target,
        String bucket,
        String key,
        HeldFenceStack.Entry hold) {}
  }

  /**
   * Installs the sink, replacing any earlier one.
   *
   * @param newSink the sink, or {@code null} to turn the audit off
   */
  public static void install(Sink newSink) {
    sink = newSink;
  }

  /**
   * @return the installed sink, or {@code null}
   */
  public static Sink sink() {
    return sink;
  }

  /**
   * Judges one write before it starts. Every call that returns normally must be paired with one
   * {@link #exit()} on the same thread.
   *
   * @param client the storage client id, for example {@code aws-s3-v2}
   * @param operation the operation, for example {@code putObject}
   * @param target the request object (or other value) the sink reads bucket and key from; may be
   *     {@code null}
   * @throws RuntimeException from the sink, to refuse an unfenced write (enforce mode); the nesting
   *     depth is then already restored and {@code exit} must not be called
   */
  public static void enter(String client, String operation, Object target) {
    check(client, operation, target, null, null);
  }

  /**
   * As {@link #enter(String, String, Object)}, for advice that has the bucket and key as text.
   *
   * @param client the storage client id
   * @param operation the operation
   * @param bucket the bucket or volume; may be {@code null}
   * @param key the object key or path; may be {@code null}
   * @throws RuntimeException from the sink, to refuse an unfenced write (enforce mode)
   */
  public static void enter(String client, String operation, String bucket, String key) {
    check(client, operation, null, bucket, key);
  }

  /**
   * Starts work of the agent's own (writing the audit report) during which this thread's storage
   * writes are not judged, as if nested in a write already judged. Pair it with one {@link
   * #exit()}.
   */
  public static void suspend() {
    DEPTH.get()[0]++;
  }

  /** Ends the write that the matching {@link #enter} began on this thread. */
  public static void exit() {
    int[] depth = DEPTH.get();
    if (depth[0] > 0) {
      depth[0]--;
    }
  }

  /**
   * @return {@code true} while this thread is inside a write that was already judged
   */
  public static boolean nested() {
    return DEPTH.get()[0] > 0;
  }

  private static void check(
      String client, String operation, Object target, String bucket, String key) {
    int[] depth = DEPTH.get();
    if (depth[0]++ > 0) {
      return;
    }
    Sink current = sink;
    if (current == null) {
      return;
    }
    try {
      HeldFenceStack.Entry hold = HeldFenceStack.find(current.requiredFence(client));
      if (hold == null) {
        current.unfenced(client, operation, target, bucket, key);
      } else if (current.mapsFencedWrites()) {
        current.fenced(client, operation, target, bucket, key, hold);
      }
    } catch (RuntimeException | Error e) {
      depth[0]--;
      throw e;
    }
  }
}
