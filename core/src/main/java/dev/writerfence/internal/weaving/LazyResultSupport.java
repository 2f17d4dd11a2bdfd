package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLostException;
import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.internal.weaving.LazyResults.Enter;
import dev.writerfence.internal.weaving.LazyResults.LazyResult;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * How one reactive library's lazy result type is held per subscription ({@link LazyResults}), as
 * one class loader has that library: one strategy per library ({@link ReactorResults}, {@link
 * RxJava3Results}), made once per declared return type, each reaching its library only by
 * reflection from that type's class loader, so core links none of them.
 *
 * <p>What every library shares lives here: the handles of the type's source interface (whose one
 * method, {@code subscribe}, the body's result has), its {@code error} and empty value; the
 * subscription that invokes the method with the hold's lease on the subscribing thread; and ending
 * that subscription on the lease's loss through the library's {@link LossJoin}. What differs, how a
 * subscription acquires and when it releases, is each library's {@link #defer}.
 */
abstract class LazyResultSupport {
  /**
   * One library: the lazy types it holds, the result types of it that are refused, and how its
   * support for one type is made.
   *
   * @param typeNames the binary names of the library's lazy types
   * @param noSkip why a lazy type of it cannot skip a busy call ({@code onBusy = SKIP}), by its
   *     binary name; a type not named here can
   * @param refused why a result type of the library that is not one of its lazy types cannot be
   *     held, by the binary name of a type it is a subtype of, in the order they are tested
   * @param support the support of one lazy type, from the declared return type; throws {@link
   *     IllegalStateException} naming the type's class loader when the library is not usable there
   */
  record Library(
      List<String> typeNames,
      Map<String, String> noSkip,
      List<Map.Entry<String, String>> refused,
      Function<Class<?>, LazyResultSupport> support) {}

  final Class<?> type;
  final Class<?> source;
  private final Method sourceSubscribe;
  private final Method error;
  private final Method empty; // null: the type has no empty value (onBusy = SKIP is refused)
  private volatile LossJoin lossJoin; // found at its first use

  /**
   * @param type the lazy type, as the method's class loader has it
   * @param sourceName the binary name of the interface whose one method, {@code subscribe}, the
   *     body's result has
   * @param emptyName the type's static method that makes an empty result, or {@code null}
   */
  LazyResultSupport(Class<?> type, String sourceName, String emptyName)
      throws ReflectiveOperationException {
    this.type = type;
    this.source = Class.forName(sourceName, false, type.getClassLoader());
    this.sourceSubscribe = single(source, "subscribe");
    this.error = type.getMethod("error", Throwable.class);
    this.empty = emptyName == null ? null : type.getMethod(emptyName);
  }

  /**
   * One call of a fenced method: a result of the type that, at each subscription, enters the fence
   * (busy and unavailable arrive as its error signal), invokes the method and subscribes to what it
   * returned, and releases when that completes, fails or is cancelled.
   *
   * @param result the method's lazy result
   * @param enter enters the fence for one subscription
   * @param invocation invokes the method, once per subscription
   * @param lost the error signal of a subscription cancelled on loss, as the caller's class
   * @return an instance of the type
   */
  abstract Object defer(
      LazyResult result,
      Enter enter,
      FencedInvocation invocation,
      Function<? super FenceLostException, ? extends RuntimeException> lost);

  /**
   * How this type is ended on its lease's loss; found at the first call cancelled on loss, so a
   * library without what it needs still holds.
   *
   * @throws IllegalStateException when the library lacks it, naming the type's class loader
   */
  abstract LossJoin newLossJoin();

  /**
   * The body's result as this subscription subscribes it, on the subscribing thread with the hold
   * on it: itself, unless the library carries the holds along with it.
   */
  Object beforeSubscribe(Object body) {
    return body;
  }

  /**
   * How a subscription's work ends on its lease's loss, for one lazy type. Each hold gets a
   * one-shot signal that never emits nor completes and only fails, with the {@link
   * FenceLostException}, when the lease is lost; the body's result is joined to it by an operator
   * of the type that, when the signal fails, cancels (disposes) the body's subscription and passes
   * the failure on, and that cancels the signal's subscription when the body ends first. The signal
   * keeps the failure, so a join subscribed after the loss fails at once. The join runs inside the
   * hold's {@code usingWhen} or {@code using}, so the failure reaches the release as any failure of
   * the work does, and the subscriber after it.
   *
   * @param newSignal makes a signal: {@code Sinks.empty()}, {@code CompletableSubject.create()}
   * @param failSignal fails a signal: {@code Sinks.Empty#tryEmitError}, {@code
   *     CompletableSubject#onError}
   * @param joinSignal the body's result and a signal, joined by the type's operator
   */
  record LossJoin(Method newSignal, Method failSignal, BinaryOperator<Object> joinSignal) {
    /** A new one-shot loss signal, for one hold. */
    Object signal() {
      return call(newSignal, null);
    }

    /** Fails the signal, once: its join cancels the body and fails with {@code lost}. */
    void fail(Object signal, RuntimeException lost) {
      call(failSignal, signal, lost);
    }

    /** The body's result, ended when {@code signal} fails. */
    Object join(Object body, Object signal) {
      return joinSignal.apply(body, signal);
    }
  }

  /** The type's empty result, for a call skipped when busy. */
  final Object empty() {
    return call(empty, null);
  }

  /**
   * What the hold's subscription subscribes to: the body's result itself, or, for a call that asked
   * to be cancelled on loss, that result ended by the loss of the hold's lease. The loss is watched
   * from here, before the body's result is subscribed, until the hold's release.
   *
   * @param body the body's result: a {@code Mono} or {@code Flux}, or an RxJava source
   */
  final Object endedByLoss(
      LazyResult result,
      LazyHold hold,
      Object body,
      Function<? super FenceLostException, ? extends RuntimeException> lost) {
    if (!result.cancelOnLoss()) {
      return body;
    }
    LossJoin join = lossJoin();
    Object signal = join.signal();
    hold.watchLoss(e -> join.fail(signal, lost.apply(e)));
    return join.join(body, signal);
  }

  private LossJoin lossJoin() {
    LossJoin j = lossJoin;
    if (j == null) {
      j = newLossJoin(); // found at the first use: a type without it still holds
      lossJoin = j;
    }
    return j;
  }

  /**
   * The source one subscription subscribes to: it invokes the method and subscribes to its result
   * with the hold's lease on the subscribing thread.
   */
  final Object subscription(LazyResult result, LazyHold hold, FencedInvocation invocation) {
    return implement(
        source,
        sourceSubscribe.getName(),
        args -> {
          CarriedHolds.Scope held = hold.push();
          try {
            Object body;
            try {
              body = invocation.proceed();
              if (body == null) {
                throw new NullPointerException(
                    "writer-fence: "
                        + result.where()
                        + " returned null instead of a "
                        + type.getName());
              }
            } catch (Throwable t) {
              body = call(error, null, t);
            }
            call(sourceSubscribe, beforeSubscribe(body), args[0]);
            return null;
          } finally {
            held.close();
          }
        });
  }

  /** What a type whose library lacks a handle cannot do, and why. */
  static IllegalStateException unusable(String what, Class<?> type, Throwable why) {
    return new IllegalStateException(
        "writer-fence: cannot "
            + what
            + ": its library is not usable from "
            + type.getClassLoader()
            + " ("
            + why
            + ")",
        why);
  }

  private static Method single(Class<?> iface, String name) throws NoSuchMethodException {
    for (Method m : iface.getMethods()) {
      if (m.getName().equals(name) && m.getParameterCount() == 1) {
        return m;
      }
    }
    throw new NoSuchMethodException(iface.getName() + "." + name);
  }

  /** An instance of one of the library's single-method interfaces, in its class loader. */
  static Object implement(Class<?> iface, String method, Body body) {
    return Proxy.newProxyInstance(
        iface.getClassLoader(),
        new Class<?>[] {iface},
        (proxy, m, args) -> {
          if (m.getName().equals(method) && m.getDeclaringClass() != Object.class) {
            return body.run(args);
          }
          return switch (m.getName()) {
            case "equals" -> proxy == args[0];
            case "hashCode" -> System.identityHashCode(proxy);
            case "toString" -> "writer-fence " + iface.getSimpleName() + " of a fenced call";
            default -> throw new UnsupportedOperationException(m.toString());
          };
        });
  }

  /** The one method of a proxy made by {@link #implement}. */
  @FunctionalInterface
  interface Body {
    Object run(Object[] args) throws Throwable;
  }

  /** Calls a library method by reflection, throwing what it threw. */
  static Object call(Method m, Object target, Object... args) {
    try {
      return m.invoke(target, args);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("writer-fence: cannot call " + m, e);
    }
  }

  @Override
  public String toString() {
    return type.getName() + " of " + type.getClassLoader();
  }
}
