package dev.writerfence.internal.weaving;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceInterruptedException;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The one entry point every weaving mode calls (AspectJ, Spring AOP, the agent): a fenced call of a
 * {@code WriterFence}, around a method ({@link #proceed}) or in its enter/exit form ({@link
 * #enter}, then {@link FencedCall#exit}).
 */
public final class FencedCalls {
  private FencedCalls() {}

  /**
   * What a fence's flow offers the weaving entry: a {@code WriterFence} hands its flow to {@link
   * WeavableFence} when it is built, so its weaving entry points need not be public methods of the
   * user API.
   */
  public interface Core {
    /**
     * The enter half of a fenced call: see {@link FencedCalls#enter(WeavableFence, FenceRequest)}.
     *
     * @param call the checked call; never {@code null}
     * @return the call, to exit after the method; never {@code null}
     */
    FencedCall enter(Call call);

    /**
     * @return the backend the fence uses; never {@code null}
     */
    LeaseStore store();
  }

  /**
   * One fenced call, its values checked: from a {@link FenceRequest} ({@link #of}), or from an
   * annotation parsed once ({@link FencedMethods}), whose calls then build no request. Unset values
   * ({@code null}) take the fence's defaults.
   *
   * @param fenceName a checked fence name ({@link FenceArguments#fenceName}); never {@code null}
   * @param holderLabel a holder label as the row shows it (decorated once with {@link
   *     dev.writerfence.HolderLabel#of}; passed on as is), or {@code null} for the fence's default
   * @param ttl a checked TTL, or {@code null} for the fence's default
   * @param retryPolicy the busy retry policy, or {@code null} for the fence's default
   * @param priority a checked priority ({@link FenceArguments#priority}), or {@code null} for the
   *     fence's default
   * @param interruptOnLoss interrupt the calling thread when the lease is lost before the call ends
   *     ({@link FenceRequest.Builder#interruptOnLoss})
   * @param advisoryKey a checked advisory key text ({@link FenceArguments#advisoryKeyText}), or
   *     {@code null} for the store's key scheme
   * @param takenBy the fenced method, as {@code com.acme.Uploader.upload(String)}, that a lease
   *     taken here is taken by ({@link dev.writerfence.bootstrap.HeldFenceStack.Entry#takenBy()});
   *     {@code null} for the first frame outside writer-fence's own packages
   * @param request the request these values came from, given to a listener; {@code null} when there
   *     is none (one is made if a listener needs it)
   * @param site the annotated method's name template and busy outcome, for observations; {@code
   *     null} for a call of the API
   */
  public record Call(
      String fenceName,
      String holderLabel,
      Duration ttl,
      BusyRetryPolicy retryPolicy,
      Integer priority,
      boolean interruptOnLoss,
      String advisoryKey,
      String takenBy,
      FenceRequest request,
      Site site) {
    /**
     * @param request the request; never {@code null}
     * @param takenBy as {@link Call#takenBy()}
     * @return the call of that request
     */
    public static Call of(FenceRequest request, String takenBy) {
      return of(request, takenBy, null);
    }

    /**
     * @param request the request; never {@code null}
     * @param takenBy as {@link Call#takenBy()}
     * @param site as {@link Call#site()}; {@code null} for none
     * @return the call of that request
     */
    public static Call of(FenceRequest request, String takenBy, Site site) {
      Objects.requireNonNull(request, "request");
      OptionalInt priority = request.priority();
      return new Call(
          request.fenceName(),
          request.holderLabel().orElse(null),
          request.ttl().orElse(null),
          request.retryPolicy().orElse(null),
          priority.isPresent() ? priority.getAsInt() : null,
          request.interruptOnLoss(),
          request.advisoryKey().orElse(null),
          takenBy,
          request,
          site);
    }
  }

  /**
   * Where a fenced call comes from, made once per annotated method: what an observation of its
   * acquire names it by, and whether a busy fence skips it. Nothing reads it on the fenced path
   * unless the fence has an observation registry.
   *
   * @param nameTemplate the annotation's fence name as written, {@code "corpus:{0}"} rather than a
   *     resolved name: a bounded value, unlike the names it resolves to; never {@code null}
   * @param skipsOnBusy whether the method returns an empty value when the fence stays busy ({@code
   *     onBusy = SKIP}) rather than throwing
   */
  public record Site(String nameTemplate, boolean skipsOnBusy) {
    /**
     * @throws NullPointerException when {@code nameTemplate} is null
     */
    public Site {
      Objects.requireNonNull(nameTemplate, "nameTemplate");
    }
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
  public static FencedCall enter(WeavableFence fence, FenceRequest request) {
    return enter(fence, request, null);
  }

  /**
   * The same as {@link #enter(WeavableFence, FenceRequest)}, for advice that knows the fenced
   * method: a lease taken here names it as its taker, which the audit's writer map shows.
   *
   * @param fence the fence; never {@code null}
   * @param request the request; never {@code null}
   * @param takenBy the fenced method, as {@code com.acme.Uploader.upload(String)}; {@code null} for
   *     the first frame outside writer-fence's own packages
   * @return the call, to exit after the method; never {@code null}
   * @throws WriterFenceBusyException as {@link #enter(WeavableFence, FenceRequest)}
   * @throws WriterFenceInterruptedException as {@link #enter(WeavableFence, FenceRequest)}
   * @throws WriterFenceUnavailableException as {@link #enter(WeavableFence, FenceRequest)}
   */
  public static FencedCall enter(WeavableFence fence, FenceRequest request, String takenBy) {
    return core(fence).enter(Call.of(request, takenBy));
  }

  /**
   * A fenced call around an advised method. Like {@code WriterFence.call}, and when the invocation
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
      WeavableFence fence,
      FenceRequest request,
      Class<?> declaredReturnType,
      FencedInvocation invocation)
      throws Throwable {
    Objects.requireNonNull(declaredReturnType, "declaredReturnType");
    Objects.requireNonNull(invocation, "invocation");
    return enter(fence, request).proceed(invocation, declaredReturnType);
  }

  /**
   * The fence's flow, for an entry point that reads it to skip this class on every call ({@code
   * FencedMethods}).
   *
   * @param fence the fence; never {@code null}
   * @return its flow; never {@code null}
   */
  public static Core core(WeavableFence fence) {
    return fence.core;
  }

  /**
   * @param fence the fence; never {@code null}
   * @return the backend that fence uses: its exclusion domain, for the held-fence stack
   */
  public static LeaseStore store(WeavableFence fence) {
    return core(fence).store();
  }
}
