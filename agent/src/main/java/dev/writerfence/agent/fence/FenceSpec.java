package dev.writerfence.agent.fence;

import dev.writerfence.FenceRequest;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.internal.weaving.FencedMethods.FencedMethod;
import dev.writerfence.internal.weaving.LazyResults;
import dev.writerfence.internal.weaving.SkipOnBusy;
import dev.writerfence.retry.BusyRetryPolicy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * What one instrumented method asks of the fence, decided when its class was transformed: from a
 * {@code fence.methods} entry or from the method's {@code @WriterFenced}. A spec whose annotation
 * breaks a rule stays broken: every call of the method fails with that message and the method never
 * runs (a fence never fails open).
 */
final class FenceSpec {
  private final String method;
  private final String takenBy; // the leases' taker, for the audit's writer map; null when broken
  private final FenceNameTemplate fenceName;
  private final FenceNameTemplate advisoryKey; // null: the store's key scheme
  private final String holderLabel;
  private final Integer priority;
  private final Duration maxWait;
  private final boolean interruptOnLoss;
  private final SkipOnBusy skip; // null: busy throws
  private final FencedMethod annotated;
  private final IllegalArgumentException broken;
  private final Class<?> exitReturnType;
  private final LazyResults.LazyResult lazy; // null: held until the method returns
  private final FenceRequest constantRequest;

  private FenceSpec(
      String method,
      String takenBy,
      MethodPattern pattern,
      SkipOnBusy skip,
      FencedMethod annotated,
      IllegalArgumentException broken,
      boolean returnsFuture,
      LazyResults.LazyResult lazy) {
    this.method = method;
    this.takenBy = takenBy;
    this.fenceName = pattern == null ? null : pattern.fenceName();
    this.advisoryKey = pattern == null ? null : pattern.advisoryKey();
    this.holderLabel = pattern == null ? null : pattern.holderLabel();
    this.priority = pattern == null ? null : pattern.priority();
    this.maxWait = pattern == null ? null : pattern.maxWait();
    this.interruptOnLoss = pattern != null && pattern.interruptOnLoss();
    this.skip = skip;
    this.annotated = annotated;
    this.broken = broken;
    // The method's own return type lives in the application's class loader and must not be loaded
    // while its class is being transformed; FencedCall.exit only asks whether it can hold a
    // CompletableFuture.
    this.exitReturnType = returnsFuture ? CompletableFuture.class : Void.class;
    this.lazy = lazy;
    this.constantRequest =
        fenceName != null
                && fenceName.isConstant()
                && maxWait == null
                && (advisoryKey == null || advisoryKey.isConstant())
            ? build(fenceName.resolve(null), null, null)
            : null;
  }

  /**
   * @param returnTypeName the binary name of the method's return type ({@code void}, {@code int},
   *     {@code java.util.Optional})
   * @throws IllegalArgumentException when the entry says {@code on-busy=skip} and the method
   *     returns a primitive other than {@code void}
   */
  static FenceSpec configured(
      String method,
      String takenBy,
      MethodPattern pattern,
      String returnTypeName,
      boolean returnsFuture,
      Predicate<String> subtypeOf,
      String lastParameterTypeName) {
    SkipOnBusy skip =
        pattern.onBusy() == OnBusy.SKIP ? SkipOnBusy.of(method, returnTypeName) : null;
    LazyResults.LazyResult lazy =
        LazyResults.of(
            method,
            returnTypeName,
            subtypeOf,
            lastParameterTypeName,
            skip,
            pattern.interruptOnLoss());
    return new FenceSpec(method, takenBy, pattern, skip, null, null, returnsFuture, lazy);
  }

  static FenceSpec annotated(
      String method, String takenBy, FencedMethod annotated, boolean returnsFuture) {
    return new FenceSpec(
        method,
        takenBy,
        null,
        annotated.skipOnBusy().orElse(null),
        annotated,
        null,
        returnsFuture,
        annotated.lazyResult().orElse(null));
  }

  static FenceSpec broken(String method, IllegalArgumentException why) {
    return new FenceSpec(method, null, null, null, null, why, false, null);
  }

  /**
   * @param args the call's arguments
   * @param defaults the fence's busy retry policy
   * @return the request of this call
   * @throws IllegalArgumentException when the spec is broken or the fence name cannot be resolved
   *     from the arguments; the method then does not run
   */
  FenceRequest request(Object[] args, BusyRetryPolicy defaults) {
    if (broken != null) {
      throw new IllegalArgumentException(broken.getMessage(), broken);
    }
    if (annotated != null) {
      return annotated.request(args, defaults);
    }
    if (constantRequest != null) {
      return constantRequest;
    }
    try {
      return build(
          fenceName.resolve(args), maxWait == null ? null : defaults.withMaxWait(maxWait), args);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (fence.methods on " + method + ")", e);
    }
  }

  private FenceRequest build(String name, BusyRetryPolicy retryPolicy, Object[] args) {
    return FenceRequest.builder(name)
        .advisoryKey(advisoryKey == null ? null : advisoryKey.resolve(args))
        .holderLabel(holderLabel)
        .priority(priority)
        .retryPolicy(retryPolicy)
        // A lazy result is cancelled on loss per subscription (LazyResults): no thread of its
        // enter is the one to interrupt.
        .interruptOnLoss(interruptOnLoss && lazy == null)
        .build();
  }

  /**
   * @return what a call does when the fence stays busy: skip with this value, or {@code null} when
   *     busy throws
   */
  SkipOnBusy skipOnBusy() {
    return skip;
  }

  /**
   * @return a stand-in for the method's return type, for {@link
   *     dev.writerfence.internal.weaving.FencedCall#exit}: {@link CompletableFuture} when it can
   *     hold one
   */
  Class<?> exitReturnType() {
    return exitReturnType;
  }

  /**
   * @return how the method's lazy result is held per subscription, or {@code null} when it is held
   *     until the method returns
   */
  LazyResults.LazyResult lazy() {
    return lazy;
  }

  /**
   * @return the method as the leases it takes name their taker ({@code
   *     com.acme.Uploader.upload(String)}); {@code null} for a broken spec, whose calls take none
   */
  String takenBy() {
    return takenBy;
  }

  /**
   * @return the method, for messages
   */
  String method() {
    return method;
  }
}
