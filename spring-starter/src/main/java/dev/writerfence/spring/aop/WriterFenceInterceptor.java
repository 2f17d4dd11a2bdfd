package dev.writerfence.spring.aop;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.weaving.FencedInvocation;
import dev.writerfence.internal.weaving.FencedMethods;
import dev.writerfence.internal.weaving.LazyResults;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.KotlinDetector;
import org.springframework.util.ClassUtils;

/**
 * The Spring AOP advice: runs the call under the fence its {@code @WriterFenced} names, through the
 * core entry point every weaving mode uses ({@link FencedMethods#proceed}).
 */
final class WriterFenceInterceptor implements MethodInterceptor {
  /** What {@code AopUtils.invokeJoinpointUsingReflection} checks before it runs one in a Mono. */
  private static final boolean SPRING_RUNS_SUSPEND_IN_MONO =
      ClassUtils.isPresent("kotlinx.coroutines.reactor.MonoKt", AopUtils.class.getClassLoader());

  private final FencedMethodResolver resolver;
  private final Supplier<WriterFence> fence;

  WriterFenceInterceptor(FencedMethodResolver resolver, Supplier<WriterFence> fence) {
    this.resolver = resolver;
    this.fence = fence;
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Class<?> targetClass = target != null ? AopUtils.getTargetClass(target) : null;
    Optional<Method> carrier = resolver.carrier(invocation.getMethod(), targetClass);
    if (carrier.isEmpty()) {
      return invocation.proceed();
    }
    Method method = carrier.get();
    FencedInvocation proceed = invocation::proceed;
    if (invocation instanceof ProxyMethodInvocation chain
        && LazyResults.isLazy(method.getReturnType())) {
      // A lazy result runs the method at each subscription: each runs the rest of the chain (the
      // advice inside ours, such as a transaction's) from here, on a copy of the invocation.
      proceed = () -> chain.invocableClone().proceed();
    }
    return FencedMethods.proceed(
        fence.get(), method, invocation.getArguments(), proceed, withArguments(invocation));
  }

  /**
   * How a Kotlin suspend function proceeds: with a continuation of the fence's in place of the
   * caller's, on a copy of the invocation that carries it to the rest of the chain. One path for
   * both of Spring's ways of invoking it: without kotlinx-coroutines-reactor the target method is
   * invoked with that continuation, which releases when the function resumes it; with it, Spring
   * ({@code AopUtils.invokeJoinpointUsingReflection}) invokes the function in a {@code Mono} that
   * runs it with that continuation's context (so the hold is on each thread that resumes it) and
   * the proxy awaits that {@code Mono} with the caller's own continuation: the hold is released
   * when that {@code Mono} ends ({@link LazyResults.SuspendInvocation#returnsMono()}). Spring's
   * handling is not bypassed, and the call is fenced once, here.
   */
  private static LazyResults.SuspendInvocation withArguments(MethodInvocation invocation) {
    if (!(invocation instanceof ProxyMethodInvocation chain)) {
      return null; // a suspend function then fails, naming itself, and does not run
    }
    return new LazyResults.SuspendInvocation() {
      @Override
      public Object proceed(Object[] args) throws Throwable {
        return chain.invocableClone(args).proceed();
      }

      @Override
      public boolean returnsMono() {
        return SPRING_RUNS_SUSPEND_IN_MONO
            && KotlinDetector.isSuspendingFunction(invocation.getMethod());
      }
    };
  }
}
