package dev.writerfence.internal.weaving;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceInterruptedException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The one entry point every weaving mode calls (AspectJ, Spring AOP, the agent): a fenced call of a
 * {@link WriterFence}, around a method ({@link #proceed}) or in its enter/exit form ({@link
 * #enter}, then {@link FencedCall#exit}).
 */
public final class FencedCalls {
  private static volatile Core core;

  private FencedCalls() {}

  /**
   * What core's {@link WriterFence} lends this class, so that its weaving entry points need not be
   * public methods of the user API. Core installs it before the first {@link WriterFence} exists;
   * nothing else may.
   */
  public interface Core {
    /**
     * @param fence the fence; never {@code null}
     * @param request the request; never {@code null}
     * @return the call, to exit after the method
     */
    default FencedCall enter(WriterFence fence, FenceRequest request) {
      return enter(fence, request, null);
    }

    /**
     * The same as {@link #enter(WriterFence, FenceRequest)}, naming who takes the lease.
     *
     * @param fence the fence; never {@code null}
     * @param request the request; never {@code null}
     * @param takenBy the fenced method, as {@code com.acme.Uploader.upload(String)}, that a lease
     *     taken here is taken by ({@link
     *     dev.writerfence.bootstrap.HeldFenceStack.Entry#takenBy()}); {@code null} for the first
     *     frame outside writer-fence's own packages
     * @return the call, to exit after the method
     */
    FencedCall enter(WriterFence fence, FenceRequest request, String takenBy);

    /**
     * The same as {@link #enter(WriterFence, FenceRequest)} for values that were checked already
     * (an annotation parsed once, a fence name checked by {@link FenceArguments#fenceName}), so
     * that no request need be built per call.
     *
     * @param fence the fence; never {@code null}
     * @param fenceName a checked fence name; never {@code null}
     * @param holderLabel a checked holder label as the row shows it (decorated once with {@link
     *     dev.writerfence.HolderLabel#of}; passed on as is), or {@code null} for the fence's
     *     default
     * @param ttl a checked TTL, or {@code null} for the fence's default
     * @param retryPolicy the busy retry policy, or {@code null} for the fence's default
     * @param priority a checked priority ({@link FenceArguments#priority}), or {@code null} for the
     *     fence's default
     * @return the call, to exit after the method
     */
    default FencedCall enter(
        WriterFence fence,
        String fenceName,
        String holderLabel,
        Duration ttl,
        BusyRetryPolicy retryPolicy,
        Integer priority) {
      return enter(fence, fenceName, holderLabel, ttl, retryPolicy, priority, false);
    }

    /**
     * The same as {@link #enter(WriterFence, String, String, Duration, BusyRetryPolicy, Integer)},
     * for a call that may ask to be interrupted on loss.
     *
     * @param fence the fence; never {@code null}
     * @param fenceName a checked fence name; never {@code null}
     * @param holderLabel as above, or {@code null} for the fence's default
     * @param ttl a checked TTL, or {@code null} for the fence's default
     * @param retryPolicy the busy retry policy, or {@code null} for the fence's default
     * @param priority a checked priority, or {@code null} for the fence's default
     * @param interruptOnLoss interrupt the calling thread when the lease is lost before the call
     *     ends ({@link FenceRequest.Builder#interruptOnLoss})
     * @return the call, to exit after the method
     */
    default FencedCall enter(
        WriterFence fence,
        String fenceName,
        String holderLabel,
        Duration ttl,
        BusyRetryPolicy retryPolicy,
        Integer priority,
        boolean interruptOnLoss) {
      return enter(
          fence, fenceName, holderLabel, ttl, retryPolicy, priority, interruptOnLoss, null);
    }

    /**
     * The same as {@link #enter(WriterFence, String, String, Duration, BusyRetryPolicy, Integer,
     * boolean)}, naming who takes the lease.
     *
     * @param fence the fence; never {@code null}
     * @param fenceName a checked fence name; never {@code null}
     * @param holderLabel as above, or {@code null} for the fence's default
     * @param ttl a checked TTL, or {@code null} for the fence's default
     * @param retryPolicy the busy retry policy, or {@code null} for the fence's default
     * @param priority a checked priority, or {@code null} for the fence's default
     * @param interruptOnLoss interrupt the calling thread when the lease is lost before the call
     *     ends
     * @param takenBy the fenced method a lease taken here is taken by; {@code null} for the first
     *     frame outside writer-fence's own packages
     * @return the call, to exit after the method
     */
    FencedCall enter(
        WriterFence fence,
        String fenceName,
        String holderLabel,
        Duration ttl,
        BusyRetryPolicy retryPolicy,
        Integer priority,
        boolean interruptOnLoss,
        String takenBy);

    /**
     * @param fence the fence; never {@code null}
     * @return the backend that fence uses
     */
    LeaseStore store(WriterFence fence);
  }

  /**
   * Called once, by core, before the first {@link WriterFence} exists.
   *
   * @param installed core's side; never {@code null}
   * @throws IllegalStateException when one was installed already
   */
  public static synchronized void install(Core installed) {
    Objects.requireNonNull(installed, "installed");
    if (core != null) {
      throw new IllegalStateException("writer-fence: FencedCalls is installed by WriterFence only");
    }
    core = installed;
  }

  /**
   * The enter half of a fenced call, for advice that runs before and after a method instead of
   * around it (the agent's Byte Buddy advice). Inside a hold of the same fence name in the fence's
   * domain on this thread (of a fenced call or of an {@code acquire}/{@code tryAcquire} not yet
   * released, pushed by any copy of core in the JVM), the call joins that hold (no acquire);
   * otherwise it acquires with busy retry and pushes the lease on the thread's held-fence stack.
   * The caller must then call {@link FencedCall#exit} exactly once on this thread, whatever the
   * method did.
   *
   * @param fence the fence; never {@code null}
   * @param request the request; never {@code null}
   * @return the call, to exit after the method; never {@code null}
   * @throws WriterFenceBusyException when busy after the last attempt; the method must not run
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting for its
   *     turn or to retry, or was interrupted already when a turn had to be waited for; the method
   *     must not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed; the method must
   *     not run
   */
  public static FencedCall enter(WriterFence fence, FenceRequest request) {
    return enter(fence, request, null);
  }

  /**
   * The same as {@link #enter(WriterFence, FenceRequest)}, for advice that knows the fenced method:
   * a lease taken here names it as its taker, which the audit's writer map shows.
   *
   * @param fence the fence; never {@code null}
   * @param request the request; never {@code null}
   * @param takenBy the fenced method, as {@code com.acme.Uploader.upload(String)}; {@code null} for
   *     the first frame outside writer-fence's own packages
   * @return the call, to exit after the method; never {@code null}
   * @throws WriterFenceBusyException as {@link #enter(WriterFence, FenceRequest)}
   * @throws WriterFenceInterruptedException as {@link #enter(WriterFence, FenceRequest)}
   * @throws WriterFenceUnavailableException as {@link #enter(WriterFence, FenceRequest)}
   */
  public static FencedCall enter(WriterFence fence, FenceRequest request, String takenBy) {
    return core(fence).enter(fence, Objects.requireNonNull(request, "request"), takenBy);
  }

  /**
   * A fenced call around an advised method. Like {@link WriterFence#call}, and when the invocation
   * returns a {@link CompletionStage}, the lease is kept until that stage completes. If {@code
   * declaredReturnType} can hold a {@link CompletableFuture}, a future that completes after the
   * release is returned; otherwise the method's own stage is returned and the release follows its
   * completion. Cancelling that returned future does not cancel the method's stage nor release the
   * lease early: the release follows the method's own stage only.
   *
   * @param fence the fence; never {@code null}
   * @param request the request; never {@code null}
   * @param declaredReturnType the advised method's declared return type; never {@code null}
   * @param invocation proceeds to the advised method; never {@code null}
   * @return the method's result
   * @throws WriterFenceBusyException when busy after the last attempt; the method did not run
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting for its
   *     turn or to retry, or was interrupted already when a turn had to be waited for; the method
   *     did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   * @throws Throwable what the method threw, with any release failure attached as suppressed
   */
  public static Object proceed(
      WriterFence fence,
      FenceRequest request,
      Class<?> declaredReturnType,
      FencedInvocation invocation)
      throws Throwable {
    Objects.requireNonNull(declaredReturnType, "declaredReturnType");
    Objects.requireNonNull(invocation, "invocation");
    return enter(fence, request).proceed(invocation, declaredReturnType);
  }

  /**
   * Core's side, for an entry point that keeps it to skip this class on every call ({@code
   * FencedMethods}).
   *
   * @param fence any fence; its existence proves core's side is installed; never {@code null}
   * @return core's side; never {@code null}
   */
  public static Core core(WriterFence fence) {
    Objects.requireNonNull(fence, "fence");
    return core;
  }

  /**
   * @param fence the fence; never {@code null}
   * @return the backend that fence uses: its exclusion domain, for the held-fence stack
   */
  public static LeaseStore store(WriterFence fence) {
    return core(fence).store(fence);
  }
}
