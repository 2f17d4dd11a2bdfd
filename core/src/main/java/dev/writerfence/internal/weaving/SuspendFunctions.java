package dev.writerfence.internal.weaving;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.internal.weaving.LazyResults.Enter;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Kotlin {@code suspend} functions held until they resume their caller ({@link LazyResults}). A
 * suspend function compiles to a method whose last parameter is the caller's {@code
 * kotlin.coroutines.Continuation} and which returns its value, or {@code COROUTINE_SUSPENDED} when
 * it will resume that continuation later. The call acquires on the calling thread (blocking it, as
 * a blocking fenced call does), then invokes the method with a continuation of its own in place of
 * the caller's: when the function completes, fails or is cancelled (a {@code CancellationException}
 * arrives there too), that continuation releases and then resumes the caller's. A function that
 * returns without suspending, or throws, is released at once.
 *
 * <p>While the function runs before its first suspension the lease is on the calling thread. When
 * kotlinx-coroutines is on the class path of the method's class loader, the continuation's context
 * also carries {@code ThreadLocal.asContextElement} of a thread local whose {@code set} puts the
 * lease on the thread's held-fence stack and takes it off again, so wherever the dispatcher resumes
 * the function (another thread of {@code Dispatchers.IO}, {@code withContext}) the lease is on that
 * thread while the function runs there: {@code WriterFence.current(name)} gives it and a nested
 * fenced call of the same name joins it. Without kotlinx-coroutines nothing resumes the function
 * with a context, and the lease is on the calling thread only.
 *
 * <p>Kotlin's classes are reached by reflection from the class loader of the method's {@code
 * Continuation} parameter, as {@code ReactorResults} reaches Reactor: core links none of them.
 */
final class SuspendFunctions {
  static final String CONTINUATION = "kotlin.coroutines.Continuation";

  private static final ClassValue<Kotlin> KOTLIN =
      new ClassValue<>() {
        @Override
        protected Kotlin computeValue(Class<?> continuation) {
          return new Kotlin(continuation);
        }
      };

  private SuspendFunctions() {}

  /**
   * One call of a suspend function. Busy, unavailable and interrupted are thrown to the caller
   * before the function runs.
   *
   * @param where the method, for messages
   * @param skip what a call that stays busy does, or {@code null} when busy is thrown
   * @param continuationType the method's last parameter type, Kotlin's {@code Continuation}
   * @param args the call's arguments, the caller's continuation last
   * @param enter acquires, or joins a hold on this thread
   * @param invocation invokes the method with the arguments it is given
   * @return what the method returned: {@code COROUTINE_SUSPENDED} or its value; {@code null} for a
   *     call skipped when busy
   */
  static Object call(
      String where,
      SkipOnBusy skip,
      Class<?> continuationType,
      Object[] args,
      Enter enter,
      LazyResults.SuspendInvocation invocation)
      throws Throwable {
    Kotlin kotlin = KOTLIN.get(continuationType);
    Object caller = args[args.length - 1];
    if (caller == null) {
      throw new NullPointerException(
          "writer-fence: " + where + " was called without a continuation");
    }
    LazyHold hold = LazyHold.enter(enter, skip, CarriedHolds.none());
    if (hold == LazyHold.SKIPPED) {
      return null;
    }
    Resumption resumption;
    Object[] own = args.clone();
    try {
      resumption = new Resumption(hold, kotlin, caller);
      own[own.length - 1] = resumption.continuation();
    } catch (RuntimeException | Error e) {
      hold.release(e); // the method never ran: no continuation of the fence's can release it
      throw e;
    }
    Object returned;
    CarriedHolds.Scope held = hold.push();
    try {
      returned = invocation.proceed(own);
    } catch (Throwable t) {
      resumption.release(t);
      throw t;
    } finally {
      held.close();
    }
    if (invocation.returnsMono() && returned != null && returned != kotlin.suspended) {
      return releasedAfter(returned, resumption);
    }
    if (returned != kotlin.suspended) {
      resumption.release(null); // it completed without suspending: its continuation is not resumed
    }
    return returned;
  }

  /**
   * A Reactor {@code Mono} that runs the function: the hold ends when it terminates, before its
   * subscriber (the caller) hears of it, or when it is cancelled.
   */
  private static Object releasedAfter(Object mono, Resumption resumption) {
    try {
      Runnable release = () -> resumption.release(null);
      Object terminated =
          LazyResultSupport.call(
              mono.getClass().getMethod("doOnTerminate", Runnable.class), mono, release);
      return LazyResultSupport.call(
          terminated.getClass().getMethod("doOnCancel", Runnable.class), terminated, release);
    } catch (NoSuchMethodException | RuntimeException e) {
      resumption.release(e);
      throw new IllegalStateException(
          "writer-fence: a suspend function's call returned " + mono + ", not a Mono", e);
    }
  }

  /**
   * The state machine Kotlin compiles a suspend function to resumes it by calling the method again
   * with its own continuation, whose {@code label} has its sign bit set, and whose completion is
   * the continuation the first call was given: for a fenced call, the fence's. Woven into the
   * method (AspectJ, the agent) the advice sees that call too; it is the same fenced call going on,
   * not a new one, and runs unfenced here (its hold is on the thread through the context).
   *
   * @param continuation the last argument of a call of a fenced suspend function
   * @return {@code true} when the call resumes a fenced call of it
   */
  static boolean isResumption(Object continuation) {
    if (continuation == null) {
      return false;
    }
    StateMachine machine = STATE_MACHINES.get(continuation.getClass());
    if (machine.label == null) {
      return false;
    }
    try {
      if ((machine.label.getInt(continuation) & Integer.MIN_VALUE) == 0) {
        return false;
      }
      Object completion = machine.completion.invoke(continuation);
      return completion != null
          && Proxy.isProxyClass(completion.getClass())
          && Proxy.getInvocationHandler(completion) instanceof Resumption;
    } catch (ReflectiveOperationException e) {
      return false;
    }
  }

  /**
   * A continuation class's {@code label} and {@code getCompletion()}, when it is a state machine.
   */
  private record StateMachine(Field label, Method completion) {}

  private static final ClassValue<StateMachine> STATE_MACHINES =
      new ClassValue<>() {
        @Override
        protected StateMachine computeValue(Class<?> type) {
          try {
            Field label = type.getDeclaredField("label");
            if (label.getType() != int.class) {
              return new StateMachine(null, null);
            }
            label.setAccessible(true);
            Method completion = type.getMethod("getCompletion");
            return new StateMachine(label, completion);
          } catch (ReflectiveOperationException | RuntimeException e) {
            return new StateMachine(null, null);
          }
        }
      };

  /** The continuation given to the function in place of the caller's. */
  private static final class Resumption implements InvocationHandler {
    private final LazyHold hold;
    private final Kotlin kotlin;
    private final Object caller;
    private final Object context;
    private final AtomicBoolean released = new AtomicBoolean();

    Resumption(LazyHold hold, Kotlin kotlin, Object caller) {
      this.hold = hold;
      this.kotlin = kotlin;
      this.caller = caller;
      Object callerContext = LazyResultSupport.call(kotlin.getContext, caller);
      this.context = kotlin.withHold(callerContext, hold.entry());
    }

    Object continuation() {
      Class<?> type = kotlin.continuation;
      return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, this);
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
      return switch (m.getName()) {
        case "getContext" -> context;
        case "resumeWith" -> {
          release(kotlin.failure(args[0]));
          LazyResultSupport.call(kotlin.resumeWith, caller, args[0]);
          yield null;
        }
        case "equals" -> proxy == args[0];
        case "hashCode" -> System.identityHashCode(proxy);
        case "toString" -> "writer-fence continuation of " + hold + " for " + caller;
        default -> throw new UnsupportedOperationException(m.toString());
      };
    }

    /** Releases once: when the function returned, threw, or resumed its continuation. */
    void release(Throwable failure) {
      if (released.compareAndSet(false, true)) {
        hold.release(failure);
      }
    }
  }

  /**
   * A thread local that is the lease of one hold on the thread: {@code set(HELD)} pushes the hold's
   * entry on the held-fence stack, setting anything else pops it. kotlinx-coroutines' {@code
   * ThreadLocal.asContextElement} sets it where the coroutine runs and sets the old value back
   * after.
   */
  private static final class HoldOnThread extends ThreadLocal<Object> {
    static final Object HELD = new Object();
    private final HeldFenceStack.Entry entry;

    HoldOnThread(HeldFenceStack.Entry entry) {
      this.entry = entry;
    }

    @Override
    public void set(Object value) {
      boolean held = super.get() == HELD;
      if (value == HELD && !held) {
        if (entry.isValid()) {
          HeldFenceStack.push(entry);
          super.set(HELD);
        }
      } else if (value != HELD && held) {
        HeldFenceStack.pop(entry);
        remove();
      }
    }
  }

  /** Kotlin's classes as one class loader has them. */
  private static final class Kotlin {
    final Class<?> continuation;
    final Object suspended;
    final Method getContext;
    final Method resumeWith;
    final Method plus;
    final Class<?> resultFailure;
    final Field failureException;
    final Method asContextElement; // null: no kotlinx-coroutines

    Kotlin(Class<?> continuation) {
      this.continuation = continuation;
      ClassLoader loader = continuation.getClassLoader();
      try {
        if (!continuation.getName().equals(CONTINUATION)) {
          throw new ClassNotFoundException(CONTINUATION);
        }
        // What IntrinsicsKt.getCOROUTINE_SUSPENDED() answers, read where its facade class can be.
        this.suspended =
            Class.forName("kotlin.coroutines.intrinsics.CoroutineSingletons", false, loader)
                .getField("COROUTINE_SUSPENDED")
                .get(null);
        Class<?> context = Class.forName("kotlin.coroutines.CoroutineContext", false, loader);
        this.getContext = continuation.getMethod("getContext");
        this.resumeWith = continuation.getMethod("resumeWith", Object.class);
        this.plus = context.getMethod("plus", context);
        this.resultFailure = Class.forName("kotlin.Result$Failure", false, loader);
        this.failureException = resultFailure.getField("exception");
      } catch (ReflectiveOperationException | LinkageError e) {
        throw new IllegalStateException(
            "writer-fence: cannot hold a Kotlin suspend function: the Kotlin standard library is"
                + " not usable from "
                + loader
                + " ("
                + e
                + ")",
            e);
      }
      Method element;
      try {
        element =
            Class.forName("kotlinx.coroutines.ThreadContextElementKt", false, loader)
                .getMethod("asContextElement", ThreadLocal.class, Object.class);
      } catch (ReflectiveOperationException | LinkageError e) {
        element = null; // the hold stays on the calling thread
      }
      this.asContextElement = element;
    }

    /** The caller's context, with the element that puts {@code entry} on resuming threads. */
    Object withHold(Object callerContext, HeldFenceStack.Entry entry) {
      if (entry == null || asContextElement == null) {
        return callerContext; // joined: the outer hold is carried however it is carried
      }
      Object element =
          LazyResultSupport.call(
              asContextElement, null, new HoldOnThread(entry), HoldOnThread.HELD);
      return LazyResultSupport.call(plus, callerContext, element);
    }

    /** The exception of a failed {@code kotlin.Result}, or {@code null} for a value. */
    Throwable failure(Object result) throws IllegalAccessException {
      return resultFailure.isInstance(result) ? (Throwable) failureException.get(result) : null;
    }
  }
}
