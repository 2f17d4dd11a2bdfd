package dev.writerfence.weaving;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.FenceArguments;
import dev.writerfence.spi.FencedCalls;
import dev.writerfence.spi.FencedInvocation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Turns {@link WriterFenced} on a method into the fence request of one call. Shared by every
 * weaving mode, so the same annotation means the same request everywhere. The annotation is read
 * and checked once per method; a call resolves only the name's placeholders.
 */
public final class FencedMethods {
  private static final ConcurrentMap<Method, Optional<FencedMethod>> CACHE =
      new ConcurrentHashMap<>();

  private FencedMethods() {}

  /**
   * Finds the annotation on the method, or else on its declaring type (which then covers its public
   * methods only).
   *
   * @param method the advised method
   * @return the parsed annotation, or empty when neither carries one
   * @throws IllegalArgumentException when an attribute breaks its rule, naming the method
   */
  public static Optional<FencedMethod> lookup(Method method) {
    return CACHE.computeIfAbsent(method, FencedMethods::parse);
  }

  /**
   * The advice's entry point: runs the invocation under the fence the method's annotation names.
   *
   * @param fence the fence to use
   * @param method the advised method
   * @param args its arguments
   * @param invocation proceeds to it
   * @return the method's result
   * @throws Throwable what {@link FencedCalls#proceed} throws
   */
  public static Object proceed(
      WriterFence fence, Method method, Object[] args, FencedInvocation invocation)
      throws Throwable {
    Optional<FencedMethod> fenced = lookup(method);
    if (fenced.isEmpty()) {
      return invocation.proceed();
    }
    FenceRequest request = fenced.get().request(args, fence.defaultRetryPolicy());
    return FencedCalls.proceed(fence, request, method.getReturnType(), invocation);
  }

  /**
   * Parses an annotation that was read without reflection on the method (the agent reads it from
   * the class file).
   *
   * @param annotation the annotation; never {@code null}
   * @param where the annotated method, for the message
   * @return the parsed annotation
   * @throws IllegalArgumentException when an attribute breaks its rule, naming {@code where}
   */
  public static FencedMethod of(WriterFenced annotation, String where) {
    try {
      return new FencedMethod(annotation);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          e.getMessage() + " (in @WriterFenced on " + where + ")", e);
    }
  }

  private static Optional<FencedMethod> parse(Method method) {
    WriterFenced annotation = method.getAnnotation(WriterFenced.class);
    if (annotation == null && Modifier.isPublic(method.getModifiers())) {
      annotation = method.getDeclaringClass().getAnnotation(WriterFenced.class);
    }
    if (annotation == null) {
      return Optional.empty();
    }
    return Optional.of(of(annotation, method.toGenericString()));
  }

  /** One annotated method: its name template and the request values that do not vary. */
  public static final class FencedMethod {
    private final WriterFenced annotation;
    private final FenceNameTemplate name;
    private final String holderLabel;
    private final Duration ttl;
    private final boolean retryOverridden;
    private final FenceRequest constantRequest;

    FencedMethod(WriterFenced a) {
      this.annotation = a;
      this.name = FenceNameTemplate.parse(a.value());
      this.holderLabel = a.holder().isEmpty() ? null : FenceArguments.holderLabel(a.holder());
      if (a.ttlSeconds() < 0) {
        throw new IllegalArgumentException(
            "writer-fence: ttlSeconds "
                + a.ttlSeconds()
                + " is not allowed: 1 to 86400, or 0 for the default");
      }
      this.ttl = a.ttlSeconds() == 0 ? null : Duration.ofSeconds(a.ttlSeconds());
      if (ttl != null) {
        FenceArguments.ttlSeconds(ttl);
      }
      this.retryOverridden =
          a.retryMaxAttempts() != 0
              || a.retryInitialIntervalMillis() != 0
              || a.retryMultiplier() != 0
              || a.retryMaxIntervalMillis() != 0;
      retryPolicy(BusyRetryPolicy.defaults()); // names any retry value that breaks its rule now
      this.constantRequest =
          name.isConstant() && !retryOverridden ? build(name.resolve(null), null) : null;
    }

    /**
     * @return the annotation
     */
    public WriterFenced annotation() {
      return annotation;
    }

    /**
     * @param args the call's arguments
     * @param defaultRetryPolicy the fence's default, which the annotation's retry attributes adjust
     * @return the request for this call
     * @throws IllegalArgumentException when the fence name cannot be resolved from the arguments
     */
    public FenceRequest request(Object[] args, BusyRetryPolicy defaultRetryPolicy) {
      if (constantRequest != null) {
        return constantRequest;
      }
      return build(name.resolve(args), retryOverridden ? retryPolicy(defaultRetryPolicy) : null);
    }

    private FenceRequest build(String fenceName, BusyRetryPolicy retryPolicy) {
      return FenceRequest.builder(fenceName)
          .holderLabel(holderLabel)
          .ttl(ttl)
          .retryPolicy(retryPolicy)
          .build();
    }

    /** The annotation's retry attributes on top of {@code p}. */
    private BusyRetryPolicy retryPolicy(BusyRetryPolicy p) {
      WriterFenced a = annotation;
      if (a.retryMaxAttempts() != 0) {
        p = p.withMaxAttempts(a.retryMaxAttempts());
      }
      if (a.retryInitialIntervalMillis() != 0) {
        p = p.withInitialInterval(Duration.ofMillis(a.retryInitialIntervalMillis()));
      }
      if (a.retryMultiplier() != 0) {
        p = p.withMultiplier(a.retryMultiplier());
      }
      if (a.retryMaxIntervalMillis() != 0) {
        p = p.withMaxInterval(Duration.ofMillis(a.retryMaxIntervalMillis()));
      }
      return p;
    }
  }
}
