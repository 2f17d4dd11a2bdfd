package dev.writerfence.spring.aop;

import dev.writerfence.WriterFence;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.core.Ordered;

/**
 * The Spring AOP advisor for {@code @WriterFenced}: a pointcut that finds the annotation on a
 * method, on the interface method it implements, or on the type, and advice that calls the core
 * entry point.
 *
 * <h2>Order</h2>
 *
 * Spring runs advisors of lower order outside those of higher order. The fence's place is fixed at
 * {@link #ORDER}, between Resilience4j's {@code @Retry} and Spring's {@code @Transactional}:
 *
 * <pre>
 * &#64;Retry (Resilience4j, {@value #RESILIENCE4J_RETRY_ORDER})
 *   └ &#64;WriterFenced ({@value #ORDER}): acquire … release
 *       └ &#64;Transactional ({@value #TRANSACTION_ORDER}): begin … commit/rollback
 *           └ the method
 * </pre>
 *
 * So the lease is taken before the transaction begins and released after it has committed or rolled
 * back (other writers never see the fence free while this transaction's writes are still
 * uncommitted), and a busy fence ends the attempt before any transaction: {@code @Retry} then waits
 * with no lease held and no transaction open, and each attempt starts clean. The start-up check
 * ({@link WriterFenceAdviceCheck}) warns when either neighbour was moved across the fence.
 */
public final class WriterFenceAdvisor extends AbstractPointcutAdvisor {
  private static final long serialVersionUID = 1L;

  /**
   * Spring's default order of the {@code @Transactional} advisor ({@code
   * EnableTransactionManagement#order}): {@link Ordered#LOWEST_PRECEDENCE}.
   */
  public static final int TRANSACTION_ORDER = Ordered.LOWEST_PRECEDENCE;

  /**
   * Resilience4j's default order of its {@code @Retry} aspect ({@code
   * resilience4j.retry.retry-aspect-order}): {@code LOWEST_PRECEDENCE - 4}. Its CircuitBreaker,
   * RateLimiter and TimeLimiter aspects sit at {@code - 3}, {@code - 2} and {@code - 1}.
   */
  public static final int RESILIENCE4J_RETRY_ORDER = Ordered.LOWEST_PRECEDENCE - 4;

  /**
   * The fence's advisor: {@code LOWEST_PRECEDENCE - 1}, inside {@code @Retry} (and Resilience4j's
   * circuit breaker and rate limiter) and outside {@code @Transactional}. It shares its number with
   * Resilience4j's TimeLimiter, which advises asynchronous methods only; their relative order is
   * then undefined.
   */
  public static final int ORDER = Ordered.LOWEST_PRECEDENCE - 1;

  private final transient WriterFencedPointcut pointcut;
  private final transient WriterFenceInterceptor interceptor;

  /**
   * @param fence supplies the fence on first use (so that creating the advisor does not create the
   *     fence and its DataSource early)
   */
  public WriterFenceAdvisor(Supplier<WriterFence> fence) {
    FencedMethodResolver resolver = new FencedMethodResolver();
    this.pointcut = new WriterFencedPointcut(resolver);
    this.interceptor = new WriterFenceInterceptor(resolver, fence);
    setOrder(ORDER);
  }

  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  @Override
  public Advice getAdvice() {
    return interceptor;
  }
}
