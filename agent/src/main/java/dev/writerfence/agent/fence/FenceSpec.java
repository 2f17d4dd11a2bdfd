package dev.writerfence.agent.fence;

import dev.writerfence.FenceRequest;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.weaving.FencedMethods.FencedMethod;
import java.util.concurrent.CompletableFuture;

/**
 * What one instrumented method asks of the fence, decided when its class was transformed: from a
 * {@code fence.methods} entry or from the method's {@code @WriterFenced}. A spec whose annotation
 * breaks a rule stays broken: every call of the method fails with that message and the method never
 * runs (a fence never fails open).
 */
final class FenceSpec {
  private final String method;
  private final FenceNameTemplate fenceName;
  private final String holderLabel;
  private final FencedMethod annotated;
  private final IllegalArgumentException broken;
  private final Class<?> exitReturnType;
  private final FenceRequest constantRequest;

  private FenceSpec(
      String method,
      FenceNameTemplate fenceName,
      String holderLabel,
      FencedMethod annotated,
      IllegalArgumentException broken,
      boolean returnsFuture) {
    this.method = method;
    this.fenceName = fenceName;
    this.holderLabel = holderLabel;
    this.annotated = annotated;
    this.broken = broken;
    // The method's own return type lives in the application's class loader and must not be loaded
    // while its class is being transformed; FencedCall.exit only asks whether it can hold a
    // CompletableFuture.
    this.exitReturnType = returnsFuture ? CompletableFuture.class : Void.class;
    this.constantRequest =
        fenceName != null && fenceName.isConstant()
            ? FenceRequest.builder(fenceName.resolve(null)).holderLabel(holderLabel).build()
            : null;
  }

  static FenceSpec configured(String method, MethodPattern pattern, boolean returnsFuture) {
    return new FenceSpec(
        method, pattern.fenceName(), pattern.holderLabel(), null, null, returnsFuture);
  }

  static FenceSpec annotated(String method, FencedMethod annotated, boolean returnsFuture) {
    return new FenceSpec(method, null, null, annotated, null, returnsFuture);
  }

  static FenceSpec broken(String method, IllegalArgumentException why) {
    return new FenceSpec(method, null, null, null, why, false);
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
      return FenceRequest.builder(fenceName.resolve(args)).holderLabel(holderLabel).build();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(e.getMessage() + " (fence.methods on " + method + ")", e);
    }
  }

  /**
   * @return a stand-in for the method's return type, for {@link
   *     dev.writerfence.spi.FencedCall#exit}: {@link CompletableFuture} when it can hold one
   */
  Class<?> exitReturnType() {
    return exitReturnType;
  }

  /**
   * @return the method, for messages
   */
  String method() {
    return method;
  }
}
