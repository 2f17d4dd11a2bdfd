package dev.writerfence.aspectj;

import dev.writerfence.WriterFence;
import dev.writerfence.config.ProcessFence;
import dev.writerfence.internal.weaving.FencedMethods;
import java.lang.reflect.Method;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.aspectj.lang.annotation.Pointcut;
import org.aspectj.lang.reflect.MethodSignature;

/**
 * Runs every {@code @WriterFenced} method under its fence.
 *
 * <ul>
 *   <li>Compile-time weaving: put this jar on ajc's aspect path ({@code <aspectLibraries>} of the
 *       aspectj-maven-plugin). The jar is itself built by ajc, so the woven code finds {@code
 *       aspectOf()}.
 *   <li>Load-time weaving: start the JVM with {@code -javaagent:aspectjweaver.jar}; this jar's
 *       {@code META-INF/aop.xml} declares the aspect, and the application's own {@code
 *       META-INF/aop.xml} limits weaving to its packages.
 * </ul>
 *
 * <p>Only execution join points are advised, never call join points, so the advice runs once per
 * call however the caller was woven. The advice hands over to {@link FencedMethods#proceed}, the
 * entry point every weaving mode shares: the fence name is resolved from the annotation and the
 * arguments (an invalid or {@code null} argument is an {@link IllegalArgumentException} before any
 * acquire), the lease is acquired with busy retry, and a method returning a {@code CompletionStage}
 * keeps its lease until that stage completes.
 *
 * <p>The fence is {@link ProcessFence#get()}: set it at start-up, or give {@code
 * -Dwriter-fence.datasource.url}. Without one the method does not run ({@link
 * IllegalStateException}).
 */
@Aspect
public class WriterFencedAspect {

  /** Creates the aspect; AspectJ makes the one instance (singleton aspect). */
  public WriterFencedAspect() {}

  /** The execution of a method carrying {@code @WriterFenced}. */
  @Pointcut("execution(@dev.writerfence.annotation.WriterFenced * *(..))")
  void annotatedMethod() {}

  /** The execution of a public method of a type carrying {@code @WriterFenced}. */
  @Pointcut("execution(public * (@dev.writerfence.annotation.WriterFenced *).*(..))")
  void methodOfAnnotatedType() {}

  /**
   * The advice: acquire, proceed, release, through the core entry point every weaving mode uses. A
   * method matched by both pointcuts is advised once.
   *
   * @param joinPoint the advised execution; never {@code null}
   * @return the method's result; for a method returning a {@code CompletableFuture} (or a supertype
   *     of it), a future that completes after the lease is released
   * @throws Throwable what the method threw (with any release failure attached as suppressed);
   *     {@code WriterFenceBusyException} or {@code WriterFenceUnavailableException} when no lease
   *     was confirmed, and then the method did not run; {@link IllegalArgumentException} when the
   *     fence name cannot be resolved from the arguments, before any acquire
   */
  @Around(
      "(annotatedMethod() || methodOfAnnotatedType()) && !within(dev.writerfence.aspectj.WriterFencedAspect)")
  public Object aroundFencedMethod(ProceedingJoinPoint joinPoint) throws Throwable {
    Method method = ((MethodSignature) joinPoint.getSignature()).getMethod();
    WriterFence fence = ProcessFence.get();
    // A Kotlin suspend function proceeds with a continuation of the fence's in place of the
    // caller's (proceed with arguments), which releases when the function resumes its caller.
    return FencedMethods.proceed(
        fence, method, joinPoint.getArgs(), joinPoint::proceed, joinPoint::proceed);
  }
}
