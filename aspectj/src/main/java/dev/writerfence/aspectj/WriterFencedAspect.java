package dev.writerfence.aspectj;

import dev.writerfence.WriterFence;
import dev.writerfence.config.WriterFences;
import dev.writerfence.weaving.FencedMethods;
import java.lang.reflect.Method;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Pointcut;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Runs every {@code @WriterFenced} method under its fence. Woven at compile time
 * (aspectj-maven-plugin with this jar as an aspect library) or at load time (this jar's {@code
 * META-INF/aop.xml} and the AspectJ weaver agent).
 *
 * <p>Only execution join points are advised, never call join points, so the advice runs once per
 * call however the caller was woven. The fence is {@link WriterFences#getDefault()}: set it at
 * start-up, or give {@code -Dwriter-fence.datasource.url}. Without one the method does not run.
 */
@Aspect
public class WriterFencedAspect {

  /** A method carrying {@code @WriterFenced}. */
  @Pointcut("execution(@dev.writerfence.annotation.WriterFenced * *(..))")
  void annotatedMethod() {}

  /** A public method of a type carrying {@code @WriterFenced}. */
  @Pointcut("execution(public * (@dev.writerfence.annotation.WriterFenced *).*(..))")
  void methodOfAnnotatedType() {}

  /**
   * The advice: acquire, proceed, release, through the core entry point every weaving mode uses.
   *
   * @param joinPoint the advised execution
   * @return the method's result
   * @throws Throwable what the method threw, or the fence's busy or unavailable exception
   */
  @Around("(annotatedMethod() || methodOfAnnotatedType()) && !within(dev.writerfence.aspectj..*)")
  public Object aroundFencedMethod(ProceedingJoinPoint joinPoint) throws Throwable {
    Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
    WriterFence fence = WriterFences.getDefault();
    return FencedMethods.proceed(fence, method, joinPoint.getArgs(), joinPoint::proceed);
  }
}
