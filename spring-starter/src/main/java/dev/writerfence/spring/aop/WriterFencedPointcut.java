package dev.writerfence.spring.aop;

import java.lang.reflect.Method;
import org.springframework.aop.support.StaticMethodMatcherPointcut;

/**
 * Matches the methods whose calls run under {@code @WriterFenced}: annotated on the method, on a
 * method it overrides or implements (interface methods included), or on the type that declares it
 * (public methods). See {@link FencedMethodResolver}.
 */
final class WriterFencedPointcut extends StaticMethodMatcherPointcut {
  private final FencedMethodResolver resolver;

  WriterFencedPointcut(FencedMethodResolver resolver) {
    this.resolver = resolver;
    setClassFilter(resolver::isCandidate);
  }

  @Override
  public boolean matches(Method method, Class<?> targetClass) {
    return resolver.carrier(method, targetClass).isPresent();
  }

  @Override
  public boolean equals(Object other) {
    return this == other;
  }

  @Override
  public int hashCode() {
    return System.identityHashCode(this);
  }

  @Override
  public String toString() {
    return "WriterFencedPointcut";
  }
}
