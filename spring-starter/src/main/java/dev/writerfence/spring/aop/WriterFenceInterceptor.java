package dev.writerfence.spring.aop;

import dev.writerfence.WriterFence;
import dev.writerfence.spi.FencedInvocation;
import dev.writerfence.weaving.FencedMethods;
import dev.writerfence.weaving.LazyResults;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * The Spring AOP advice: runs the call under the fence its {@code @WriterFenced} names, through the
 * core entry point every weaving mode uses ({@link FencedMethods#proceed}).
 */
final class WriterFenceInterceptor implements MethodInterceptor {
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
    return FencedMethods.proceed(fence.get(), method, invocation.getArguments(), proceed);
  }
}
