package dev.writerfence.agent.fence;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceException;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.internal.weaving.FencedInvocation;
import dev.writerfence.internal.weaving.LazyResults;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * What the inlined fence advice calls. Public and on the system class path (the agent jar), so the
 * advice resolves it from any application class loader by parent delegation; its methods take and
 * return JDK types only.
 *
 * <p>The specs of instrumented methods are registered when their classes are transformed, under the
 * key the advice passes ({@code type.method(descriptor)}). The {@link WriterFence} is built on the
 * first fenced call, once; its leases are released by core's JVM shutdown hook.
 */
public final class FenceDispatch {
  private static final Map<String, FenceSpec> SPECS = new ConcurrentHashMap<>();
  private static volatile Properties settings;
  private static volatile WriterFence fence;

  /** The key of the method whose next invocation on this thread runs its body unfenced. */
  private static final ThreadLocal<String> PASS_THROUGH = new ThreadLocal<>();

  /**
   * The JDK logger of the pool shaded into the agent (ADR 45), held here because the JDK keeps
   * loggers only weakly: set to warnings, so that the pool's start-up lines do not land on the
   * application's standard error, while its warnings (a connection it cannot open) still do.
   */
  private static Logger poolLog;

  private FenceDispatch() {}

  /**
   * @param fenceSettings the {@code writer-fence.*} settings core's {@link WriterFenceSettings}
   *     reads (prefixed keys)
   */
  static void configure(Properties fenceSettings) {
    settings = fenceSettings;
  }

  static void register(String key, FenceSpec spec) {
    SPECS.put(key, spec);
  }

  /**
   * The enter advice: acquires the fence of the method, before the method's body runs, or joins a
   * hold of the same fence name in the agent fence's domain on this thread, which any copy of core
   * may have pushed (the application's own, through Spring AOP, the aspect, {@code call}, {@code
   * acquire} or {@code tryAcquire}, on the same database and schema): the agent runs inside that
   * hold rather than contend with it. A hold of another domain is another fence.
   *
   * <p>Busy, unavailable and interrupted are thrown as the application's own exception classes when
   * the fenced class sees core ({@link CallerExceptions}), else as the agent's. Busy of a method
   * whose spec skips when busy ({@code onBusy = SKIP}, {@code on-busy=skip}) is not thrown: a
   * {@link Skipped} is returned, on which the enter advice skips the method's body and the exit
   * advice returns its value.
   *
   * @param key the instrumented method, {@code type.method(descriptor)}
   * @param type the class whose method is fenced
   * @param args the call's arguments
   * @return the entered call, to hand to {@link #exit}; a {@link Skipped} when the method must not
   *     run and return its value
   * @throws RuntimeException a {@code WriterFenceBusyException} when busy after the last attempt, a
   *     {@code WriterFenceUnavailableException} when the lease cannot be confirmed, a {@code
   *     WriterFenceInterruptedException} when interrupted while waiting to retry
   * @throws IllegalArgumentException when the fence name cannot be resolved, or a setting or the
   *     method's {@code @WriterFenced} breaks its rule
   * @throws IllegalStateException when no spec was registered for {@code key} (cannot happen for
   *     advice the agent inlined)
   */
  public static Object enter(String key, Class<?> type, Object[] args) {
    FenceSpec spec = SPECS.get(key);
    if (spec == null) {
      throw new IllegalStateException(
          "writer-fence agent: no fence is known for " + key + "; the method does not run");
    }
    try {
      WriterFence f = fence();
      FencedCall call =
          FencedCalls.enter(f, spec.request(args, f.defaultRetryPolicy()), spec.takenBy());
      // A joined call has an exit too: one that asked to be interrupted on loss must disarm.
      return new Entered(call, spec.exitReturnType(), type);
    } catch (WriterFenceBusyException e) {
      if (spec.skipOnBusy() != null) {
        return new Skipped(spec.skipOnBusy().skip(e));
      }
      throw CallerExceptions.forCaller(type, e);
    } catch (WriterFenceException e) {
      throw CallerExceptions.forCaller(type, e);
    }
  }

  /**
   * The exit advice: ends the hold and releases, or leaves the release to a returned stage.
   *
   * @param entered what {@link #enter} returned
   * @param returned the method's result; {@code null} for {@code void}, a primitive or a throw
   * @param thrown what the method threw, or {@code null}; a release failure is attached to it as
   *     suppressed
   * @return the result the caller must see (a future that completes after the release, for a stage)
   */
  public static Object exit(Object entered, Object returned, Throwable thrown) {
    if (entered instanceof Skipped skipped) {
      return skipped.value;
    }
    if (!(entered instanceof Entered e)) {
      return returned;
    }
    try {
      return e.call().exit(returned, thrown, e.returnType());
    } catch (WriterFenceException lost) { // lost while it ran, and the call asked to be interrupted
      throw CallerExceptions.forCaller(e.type(), lost);
    }
  }

  /**
   * The enter advice of a method returning a lazy result ({@link FenceSpec#lazy()}): the method's
   * body does not run now. The caller gets, through {@link Skipped}, a result of the method's type
   * that at each subscription enters the fence with this call's request (its fence name resolved
   * now) and runs the method again by reflection, on the subscribing thread, with a mark that makes
   * this advice let that one invocation through to the body unfenced; the hold then lasts until the
   * subscription completes, fails or is cancelled ({@link LazyResults}). A Kotlin {@code suspend}
   * function is entered now instead and held until it resumes its caller; the state machine's calls
   * that resume it run the body.
   *
   * @param key the instrumented method, {@code type.method(descriptor)}
   * @param type the class whose method is fenced
   * @param method the method itself
   * @param self the instance, or {@code null} for a static method
   * @param args the call's arguments
   * @return {@code null} for the marked invocation or a resumption (its body runs), else a {@link
   *     Skipped} holding the deferred result (a suspend function's: what its call returned)
   * @throws IllegalArgumentException when the fence name cannot be resolved, or the spec is broken
   * @throws IllegalStateException when no spec was registered for {@code key}
   */
  public static Object defer(String key, Class<?> type, Method method, Object self, Object[] args) {
    if (PASS_THROUGH.get() == key) {
      PASS_THROUGH.remove(); // this invocation only: a fenced call inside the body is fenced
      return null;
    }
    FenceSpec spec = SPECS.get(key);
    if (spec == null || spec.lazy() == null) {
      throw new IllegalStateException(
          "writer-fence agent: no lazy fence is known for " + key + "; the method does not run");
    }
    boolean suspend = spec.lazy().isSuspend();
    if (suspend && LazyResults.resumesAFencedCall(args[args.length - 1])) {
      return null; // Kotlin's state machine resuming the held call: its body runs
    }
    WriterFence f;
    try {
      f = fence();
    } catch (WriterFenceException e) {
      throw CallerExceptions.forCaller(type, e);
    }
    FenceRequest request = spec.request(args, f.defaultRetryPolicy());
    method.setAccessible(true);
    if (suspend) {
      return suspend(spec, key, method, self, args, enter(f, request, spec.takenBy(), type));
    }
    FencedInvocation invocation = () -> invokeBody(key, method, self, args);
    // A subscription cancelled on loss fails with the application's FenceLostException.
    return new Skipped(
        spec.lazy()
            .defer(
                method.getReturnType(),
                enter(f, request, spec.takenBy(), type),
                invocation,
                lost -> CallerExceptions.forCaller(type, lost)));
  }

  /**
   * A Kotlin {@code suspend} function's call ({@link LazyResults.LazyResult#isSuspend()}): acquires
   * now, on the calling thread, and runs the method again by reflection with a continuation of the
   * fence's in place of the caller's, marked to pass through the advice to the body; that
   * continuation releases when the function resumes its caller ({@link
   * LazyResults.LazyResult#callSuspending}). The caller gets what that invocation returned.
   */
  private static Skipped suspend(
      FenceSpec spec,
      String key,
      Method method,
      Object self,
      Object[] args,
      LazyResults.Enter enter) {
    Class<?>[] parameters = method.getParameterTypes();
    try {
      return new Skipped(
          spec.lazy()
              .callSuspending(
                  parameters[parameters.length - 1],
                  args,
                  enter,
                  own -> invokeBody(key, method, self, own)));
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw sneaky(t);
    }
  }

  private static LazyResults.Enter enter(
      WriterFence f, FenceRequest request, String takenBy, Class<?> type) {
    return () -> {
      try {
        return FencedCalls.enter(f, request, takenBy);
      } catch (WriterFenceException e) {
        throw CallerExceptions.forCaller(type, e);
      }
    };
  }

  /** Runs the method's body by reflection: this advice lets that one invocation through. */
  private static Object invokeBody(String key, Method method, Object self, Object[] args)
      throws Throwable {
    PASS_THROUGH.set(key);
    try {
      return method.invoke(self, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    } finally {
      PASS_THROUGH.remove();
    }
  }

  /** Throws a checked exception of the method's own unchecked, as the method would have. */
  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  private static WriterFence fence() {
    WriterFence f = fence;
    if (f != null) {
      return f;
    }
    synchronized (FenceDispatch.class) {
      if (fence == null) {
        // Built on the first fenced call: premain sets up no JDBC, retry or logging. A failure
        // here fails this call (the method does not run) and the next call tries again.
        WriterFenceSettings s = WriterFenceSettings.fromProperties(settings);
        OwnDriver.deregister();
        if (poolLog == null) {
          poolLog = Logger.getLogger(com.zaxxer.hikari.HikariDataSource.class.getPackageName());
          poolLog.setLevel(Level.WARNING);
        }
        fence = s.buildFence(s.dataSource());
      }
      return fence;
    }
  }

  private record Entered(FencedCall call, Class<?> returnType, Class<?> type) {}

  /**
   * What {@link #enter} returns for a call skipped because the fence stayed busy: the enter advice
   * skips the method's body on an instance of this class ({@code skipOn}), and the exit advice
   * returns {@link #value}. Public so that the advice, inlined into the application's classes, can
   * name it.
   */
  public static final class Skipped {
    private final Object value;

    private Skipped(Object value) {
      this.value = value;
    }
  }
}
