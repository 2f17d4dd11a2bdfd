package dev.writerfence;

import dev.writerfence.context.HeldFences;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One fenced call in its enter/exit form, for advice that cannot wrap the method in a callable
 * (Byte Buddy's {@code @Advice} inlines an enter part before the body and an exit part after it).
 * {@link WriterFence#enter} acquires (or joins a hold of the same fence name on this thread) and
 * pushes the lease on the thread's held-fence stack; {@link #exit} ends the hold and releases with
 * the holder token that acquire minted. {@link WriterFence#proceed} is built on the same two steps,
 * so every weaving mode behaves alike.
 *
 * <pre>{@code
 * FencedCall call = fence.enter(request); // busy or unavailable: throws, the body never runs
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
public final class FencedCall {
  /** A call inside an existing hold of the same fence name and domain: nothing to release. */
  static final FencedCall JOINED = new FencedCall(null, null);

  private final WriterFence fence;
  private final FenceLease lease;

  FencedCall(WriterFence fence, FenceLease lease) {
    this.fence = fence;
    this.lease = lease;
  }

  /**
   * A call that joins a lease this thread acquired with {@code acquire} or {@code tryAcquire}: the
   * lease is on the held-fence stack for the call's duration, and the acquirer still releases it.
   */
  static FencedCall joining(FenceLease acquired) {
    return new FencedCall(null, acquired);
  }

  /**
   * @return {@code true} when this call runs inside a hold this thread took before (an outer fenced
   *     call, or an {@code acquire}/{@code tryAcquire} not yet released): no acquire of its own, no
   *     release at exit
   */
  public boolean joined() {
    return fence == null;
  }

  /**
   * @return the lease this call acquired, or {@code null} when it {@linkplain #joined() joined} a
   *     hold
   */
  public FenceLease lease() {
    return fence == null ? null : lease;
  }

  /**
   * Ends the call: pops the hold, then releases the lease, unless the method returned a {@link
   * CompletionStage}, whose completion releases it instead. A lease the guarded code released
   * itself is not released again. Never throws: a release failure is attached as suppressed to
   * {@code thrown}, or logged as a warning when the method returned normally.
   *
   * @param returned what the method returned; {@code null} for {@code void} or when it threw
   * @param thrown what the method threw, or {@code null}
   * @param declaredReturnType the method's declared return type (or any type that can hold a {@link
   *     CompletableFuture} exactly when it can); never {@code null}
   * @return the value the caller must see: {@code returned}, except for a stage when {@code
   *     declaredReturnType} can hold a {@link CompletableFuture}: then a future that completes,
   *     with the stage's outcome, after the release (cancelling it neither cancels the stage nor
   *     releases early)
   */
  public Object exit(Object returned, Throwable thrown, Class<?> declaredReturnType) {
    if (fence == null) {
      if (lease != null) {
        HeldFences.pop(lease); // the joined acquire's lease stays held by its acquirer
      }
      return returned;
    }
    // The hold on this thread ends here; an asynchronous body keeps its lease until its stage
    // completes.
    HeldFences.pop(lease);
    if (thrown == null && returned instanceof CompletionStage<?> stage) {
      CompletableFuture<Object> afterRelease = new CompletableFuture<>();
      stage.whenComplete(
          (value, failure) -> {
            if (!lease.isReleased()) {
              fence.releaseAfter(lease, failure);
            }
            if (failure != null) {
              afterRelease.completeExceptionally(failure);
            } else {
              afterRelease.complete(value);
            }
          });
      return declaredReturnType.isAssignableFrom(CompletableFuture.class) ? afterRelease : stage;
    }
    if (!lease.isReleased()) { // a lost lease too: its row may still carry our token
      fence.releaseAfter(lease, thrown);
    }
    return returned;
  }
}
