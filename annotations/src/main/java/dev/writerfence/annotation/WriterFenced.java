package dev.writerfence.annotation;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method (or every public method of a type) as a writer of a shared bucket or volume: the
 * method runs only while this process holds the lease on the named fence.
 *
 * <p>The annotation itself does nothing. One of the weaving modes puts the advice around the
 * method: the AspectJ aspect ({@code writer-fence-aspectj}, compile-time or load-time weaving),
 * Spring AOP through the Spring Boot starter, or the {@code -javaagent}. Each builds the same fence
 * request from these attributes and calls the same core entry point.
 *
 * <p>Where it counts, the same in every weaving mode: on the method that runs, or on the class that
 * declares it, which then covers its public methods only (and, the annotation being {@link
 * Inherited}, those of its subclasses). An annotation on an interface, on an abstract method or on
 * the interface type, is <b>not honoured</b> on the methods implementing it: Java does not inherit
 * method annotations, and neither AspectJ's pointcuts nor the agent's class-file scan see an
 * interface when they weave its implementation. The Spring starter and the agent log each such
 * method; put the annotation on the implementing method or its class. A default method of an
 * interface is a method that runs: an annotation on it counts.
 *
 * <p>Attributes left at their defaults ({@code 0}, {@code -1} or the empty string) take the
 * configured default of the {@code WriterFence} that runs the advice.
 *
 * <p>Outcomes: the method runs only with a confirmed lease. When the fence stays busy after the
 * last attempt the caller gets {@code WriterFenceBusyException}; when the database cannot confirm
 * the lease, {@code WriterFenceUnavailableException}. In neither case does the method run.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface WriterFenced {

  /**
   * The fence name: every writer of one bucket or volume uses the same name. 1 to 200 characters
   * (code points), no control or format characters (such as U+200B ZERO WIDTH SPACE or U+FEFF), no
   * leading or trailing white space; the rule is {@code FenceArguments.fenceName} in
   * writer-fence-core, checked again by the SQL contract.
   *
   * <p>Placeholders {@code {0}}, {@code {1}}, ... are replaced by the method's arguments (their
   * {@code toString()}), for example {@code "corpus:{0}"} for one fence per bucket. A placeholder
   * whose argument is {@code null}, or an index past the last argument, is an {@code
   * IllegalArgumentException} before any acquire. {@code {{} } and {@code }}} are literal braces.
   *
   * @return the fence name or its template; never empty
   */
  String value();

  /**
   * With the advisory-lock backend ({@code backend=advisory}): the text whose SHA-256 names the
   * advisory lock this method takes, in place of the store's key scheme ({@code
   * advisory.key-scheme}, by default {@code writer-fence:} and the fence name). The lock key is the
   * first 8 bytes of SHA-256 over the text's UTF-8 bytes, read as a signed big-endian 64-bit
   * integer, so a writer in another language that locks {@code pg_try_advisory_lock} on that key is
   * excluded by this method and excludes it. For example {@code "vibey.integrate:{0}:{1}"} with
   * {@code value = "integrate:{0}:{1}"} locks what a Python job worker locks for {@code
   * sha256(f"vibey.integrate:{project}:{cycle}")}.
   *
   * <p>Placeholders as in {@link #value()}, fed by the same arguments; the key may use only
   * arguments the fence name uses, so one fence name always takes one key. The fence name stays the
   * call's identity (logs, metrics, holders, busy answers). The expanded text is 1 to 1000
   * characters with no control or format characters. On any other backend a call of the method is
   * refused with {@code IllegalArgumentException} before any acquire, and the method does not run.
   *
   * @return the key text or its template; empty (the default) for the store's key scheme
   */
  String advisoryKey() default "";

  /**
   * The holder label shown to operators (for example {@code write-back}, {@code upload}, {@code
   * pull_sync}). Observability only, never part of exclusion. Empty: the fence's default label.
   *
   * @return up to 200 characters, no control or format characters; empty for the default
   */
  String holder() default "";

  /**
   * Seconds after which an unreleased lease may be taken over by another writer (database clock).
   *
   * @return 1 to 86400 seconds; {@code 0} for the fence's default TTL
   */
  int ttlSeconds() default 0;

  /**
   * How many acquire attempts in all (the first included) while the fence is busy.
   *
   * @return at least 1; {@code 0} for the fence's default (5)
   */
  int retryMaxAttempts() default 0;

  /**
   * Wait before the second attempt, in milliseconds; later waits grow by {@link #retryMultiplier()}
   * with random jitter.
   *
   * @return at least 1 millisecond; {@code 0} for the fence's default (200 ms)
   */
  long retryInitialIntervalMillis() default 0;

  /**
   * Growth factor of the wait between attempts.
   *
   * @return at least 1.0; {@code 0} for the fence's default (2.0)
   */
  double retryMultiplier() default 0;

  /**
   * Upper bound of the wait between two attempts, in milliseconds.
   *
   * @return at least {@link #retryInitialIntervalMillis()}; {@code 0} for the fence's default
   */
  long retryMaxIntervalMillis() default 0;

  /**
   * The longest a call waits for the fence in all (in the fence's queue of waiters and for its turn
   * among this process's threads) before busy is its answer, in milliseconds.
   *
   * @return at least 1 millisecond; {@code 0} for the fence's default ({@code retry.max-wait}, by
   *     default what the retry attempts' backoff schedules, about 3 s)
   */
  long retryMaxWaitMillis() default 0;

  /** {@link #priority()}'s default: take the fence's default priority. */
  int DEFAULT_PRIORITY = Integer.MIN_VALUE;

  /**
   * The call's priority in the fence's queue of waiters: -100 to 100, higher first. One level is
   * worth one second of waiting, so a low priority is still served in bounded time (for example a
   * user-facing write-back at 50 above a nightly walk at 0).
   *
   * @return -100 to 100; {@link #DEFAULT_PRIORITY} for the fence's default ({@code priority}, 0)
   */
  int priority() default DEFAULT_PRIORITY;

  /**
   * What the call does when the fence stays busy through its wait.
   *
   * @return {@link OnBusy#THROW} (the default) or {@link OnBusy#SKIP}
   */
  OnBusy onBusy() default OnBusy.THROW;

  /**
   * Whether the thread running the method is interrupted when its lease is lost (a renewal found it
   * taken over, or no renewal confirmed it within its TTL) while the method runs. The method then
   * sees an {@code InterruptedException} from a blocking call (or its interrupt flag set), and the
   * call ends in {@code FenceLostException} with what the method threw as its cause, after the
   * usual release; a result the method returned anyway is dropped. Only while the method runs: once
   * the call has ended its thread is never interrupted for it, and an interrupt the fence sent is
   * cleared as the call ends. A method returning a {@code CompletionStage} is interrupted only
   * until it returns. A method returning a lazy result (a Reactor {@code Mono} or {@code Flux}, an
   * RxJava 3 {@code Single}, {@code Maybe}, {@code Completable}, {@code Flowable} or {@code
   * Observable}), whose work runs on threads the call does not own, has no thread interrupted:
   * instead each subscription is cancelled when its lease is lost (its work sees the cancel) and
   * fails with {@code FenceLostException} naming the fence, after the usual release. Honoured alike
   * by every weaving mode; the agent's {@code fence.methods} option is {@code
   * interrupt-on-loss=true}.
   *
   * @return {@code true} to interrupt (or, for a lazy result, to cancel the subscription); {@code
   *     false} (the default) leaves the method to poll {@code FenceLease.checkValid()}
   */
  boolean interruptOnLoss() default false;
}
