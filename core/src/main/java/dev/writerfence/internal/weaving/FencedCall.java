package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLease;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One fenced call in its enter/exit form, for advice that cannot wrap the method in a callable
 * (Byte Buddy's {@code @Advice} inlines an enter part before the body and an exit part after it).
 * {@link FencedCalls#enter} acquires (or joins a hold of the same fence name on this thread) and
 * pushes the lease on the thread's held-fence stack; {@link #exit} ends the hold and releases with
 * the holder token that acquire minted. {@link FencedCalls#proceed} is built on the same two steps,
 * so every weaving mode behaves alike.
 *
 * <pre>{@code
 * FencedCall call = FencedCalls.enter(fence, request); // busy or unavailable: throws
 * Object result;
 * try {
 *   result = body();
 * } catch (Throwable t) {
 *   call.exit(null, t, returnType); // release failure attached to t as suppressed
 *   throw t;
 * }
 * return call.exit(result, null, returnType);
 * }</pre>
 *
 * <p>Not thread-safe: {@link #exit} must run once, on the thread that entered.
 */
public interface FencedCall {
  /**
   * @return {@code true} when this call runs inside a hold this thread took before (an outer fenced
   *     call, or an {@code acquire}/{@code tryAcquire} not yet released): no acquire of its own, no
   *     release at exit
   */
  boolean joined();

  /**
   * @return the lease this call acquired, or {@code null} when it {@linkplain #joined() joined} a
   *     hold
   */
  FenceLease lease();

  /**
   * The hold's entry on the held-fence stack, for a hold that travels with its work: a lazy result
   * ({@code dev.writerfence.internal.weaving.LazyResults}) takes it off the entering thread after
   * {@link FencedCalls#enter} and puts it on the thread that subscribes, around the subscription.
   *
   * @return the entry {@link FencedCalls#enter} pushed on the entering thread, or {@code null} when
   *     the call {@linkplain #joined() joined} a hold
   */
  HeldFenceStack.Entry entry();

  /**
   * The lease whose loss ends this call's work: the one it acquired, or the hold it {@linkplain
   * #joined() joined} (a view of it, when another copy of core holds it). A lazy result that asked
   * to be cancelled on loss ({@code dev.writerfence.internal.weaving.LazyResults}) watches it.
   *
   * @return that lease, or {@code null} when this call cannot name it
   */
  default FenceLease underLease() {
    return lease();
  }

  /**
   * Ends the call: pops the hold, then releases the lease, unless the method returned a {@link
   * CompletionStage}, whose completion releases it instead. A lease the guarded code released
   * itself is not released again. A release failure is attached as suppressed to {@code thrown}, or
   * logged as a warning when the method returned normally. Throws only for a call that asked to be
   * interrupted on loss ({@link dev.writerfence.FenceRequest.Builder#interruptOnLoss}) whose lease
   * was lost before it ended: a {@link dev.writerfence.FenceLostException} with {@code thrown} as
   * its cause, after the release; its thread is never interrupted for it after this.
   *
   * @param returned what the method returned; {@code null} for {@code void} or when it threw
   * @param thrown what the method threw, or {@code null}
   * @param declaredReturnType the method's declared return type (or any type that can hold a {@link
   *     CompletableFuture} exactly when it can); never {@code null}
   * @return the value the caller must see: {@code returned}, except for a stage when {@code
   *     declaredReturnType} can hold a {@link CompletableFuture}: then a future that completes,
   *     with the stage's outcome, after the release (cancelling it neither cancels the stage nor
   *     releases early)
   * @throws dev.writerfence.FenceLostException for a call that asked to be interrupted on loss,
   *     when its lease was lost before the call ended
   */
  Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType);

  /**
   * Runs the advised method inside this call, then {@linkplain #exit exits} it whatever the method
   * did: the around form of a fenced call.
   *
   * @param invocation proceeds to the method; never {@code null}
   * @param declaredReturnType as for {@link #exit}; never {@code null}
   * @return what {@link #exit} returns
   * @throws Throwable what the method threw, with any release failure attached as suppressed
   */
  Object proceed(FencedInvocation invocation, Class<?> declaredReturnType) throws Throwable;
}
