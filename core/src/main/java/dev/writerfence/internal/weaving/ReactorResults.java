package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLostException;
import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.context.HeldFencesAccessor;
import dev.writerfence.internal.weaving.LazyResults.Enter;
import dev.writerfence.internal.weaving.LazyResults.LazyResult;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reactor's {@code Mono} and {@code Flux} held per subscription ({@link LazyResults}), through
 * {@code usingWhen}: the acquire is the resource, the method's work the use, and the release runs
 * when it completes, fails or is cancelled. The acquire may wait: it runs on the subscribing
 * thread, or on {@code boundedElastic} when that thread must not block ({@code
 * Schedulers.isInNonBlockingThread()}); so does the release.
 *
 * <p>A subscription enters inside the holds its subscriber's context carries (key {@code
 * writer-fence.holds}), and subscribes the body's result with its own holds in that context, so a
 * fenced result of the same name subscribed anywhere inside the work joins the hold, even on a
 * thread none of it reached (ADR 53). A schedule hook, installed once per class loader's Reactor
 * ({@value LazyResults#SCHEDULE_HOOK}), carries the holds to the tasks the work hands to Reactor's
 * schedulers.
 *
 * <p>Reactor is reached by reflection from the class loader of the declared return type.
 */
final class ReactorResults extends LazyResultSupport {
  private static final String MONO = "reactor.core.publisher.Mono";
  private static final String FLUX = "reactor.core.publisher.Flux";

  /** Reactor's lazy types; every other Reactive Streams publisher is refused by the dispatcher. */
  static final Library LIBRARY =
      new Library(List.of(MONO, FLUX), Map.of(), List.of(), ReactorResults::support);

  /** Where a subscription's holds travel in its subscribers' Reactor context. */
  private static final String HOLDS_KEY = HeldFencesAccessor.KEY;

  private final Method usingWhen;
  private final Method defer;
  private final Method fromCallable;
  private final Method fromRunnable;
  private final Method subscribeOn;
  private final Method boundedElastic;
  private final Method isInNonBlockingThread;
  private final Method wrap; // Mono.fromDirect or Flux.from
  private final Method doOnDiscard;
  private final Method doOnCancel;
  private final Method deferContextual;
  private final Method contextGetOrDefault;
  private final Method contextWrite;
  private final Method contextOf;

  private static LazyResultSupport support(Class<?> type) {
    try {
      return new ReactorResults(type);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw unusable("hold a " + type.getName() + " result", type, e);
    }
  }

  private ReactorResults(Class<?> type) throws ReflectiveOperationException {
    super(type, "org.reactivestreams.Publisher", "empty");
    ClassLoader loader = type.getClassLoader();
    Class<?> mono = Class.forName(MONO, false, loader);
    Class<?> schedulers = Class.forName("reactor.core.scheduler.Schedulers", false, loader);
    Class<?> scheduler = Class.forName("reactor.core.scheduler.Scheduler", false, loader);
    usingWhen =
        type.getMethod(
            "usingWhen", source, Function.class, Function.class, BiFunction.class, Function.class);
    defer = mono.getMethod("defer", Supplier.class);
    fromCallable = mono.getMethod("fromCallable", Callable.class);
    fromRunnable = mono.getMethod("fromRunnable", Runnable.class);
    doOnDiscard = mono.getMethod("doOnDiscard", Class.class, Consumer.class);
    doOnCancel = mono.getMethod("doOnCancel", Runnable.class);
    Class<?> contextView = Class.forName("reactor.util.context.ContextView", false, loader);
    Class<?> context = Class.forName("reactor.util.context.Context", false, loader);
    deferContextual = mono.getMethod("deferContextual", Function.class);
    contextGetOrDefault = contextView.getMethod("getOrDefault", Object.class, Object.class);
    contextWrite = type.getMethod("contextWrite", contextView);
    contextOf = context.getMethod("of", Object.class, Object.class);
    subscribeOn = mono.getMethod("subscribeOn", scheduler);
    boundedElastic = schedulers.getMethod("boundedElastic");
    isInNonBlockingThread = schedulers.getMethod("isInNonBlockingThread");
    wrap = isMono() ? mono.getMethod("fromDirect", source) : type.getMethod("from", source);
    installScheduleHook(schedulers);
  }

  private boolean isMono() {
    return type.getName().equals(MONO);
  }

  /**
   * Reactor runs scheduled tasks on its own threads: carry the scheduling thread's holds to them,
   * so work a subscription hands to a scheduler runs inside the subscription's hold.
   */
  private static void installScheduleHook(Class<?> schedulers) throws ReflectiveOperationException {
    Function<Runnable, Runnable> carry = task -> CarriedHolds.capture().wrap(task);
    schedulers
        .getMethod("onScheduleHook", String.class, Function.class)
        .invoke(null, LazyResults.SCHEDULE_HOOK, carry);
  }

  @Override
  Object defer(
      LazyResult result,
      Enter enter,
      FencedInvocation invocation,
      Function<? super FenceLostException, ? extends RuntimeException> lost) {
    // The subscriber's context may carry the holds of an enclosing fenced subscription, which
    // the thread subscribing here need not have (an async client's completion thread).
    Function<Object, Object> acquireInContext =
        ctx -> {
          CarriedHolds outer =
              (CarriedHolds) call(contextGetOrDefault, ctx, HOLDS_KEY, CarriedHolds.none());
          // An acquire that ends after its subscription was cancelled must not keep the lease:
          // Reactor drops such a value silently on some paths (a callable fused with
          // subscribeOn), so the cancel itself releases what was acquired and not yet taken.
          PendingHold pending = new PendingHold();
          Callable<LazyHold> acquire =
              () -> pending.acquired(LazyHold.enter(enter, result.skip(), outer));
          Object acquiring = onElasticWhenNonBlocking(call(fromCallable, null, acquire));
          return call(doOnCancel, acquiring, (Runnable) pending::cancelled);
        };
    // A hold Reactor discards (acquired for a subscription cancelled meanwhile): release it.
    Consumer<LazyHold> dropped = LazyHold::drop;
    Object resource =
        call(doOnDiscard, call(deferContextual, null, acquireInContext), LazyHold.class, dropped);
    Function<LazyHold, Object> use =
        hold ->
            hold == LazyHold.SKIPPED || !hold.claim()
                ? empty()
                : endedByLoss(
                    result, hold, call(wrap, null, subscription(result, hold, invocation)), lost);
    Function<LazyHold, Object> complete = hold -> released(hold, null);
    BiFunction<LazyHold, Throwable, Object> failed = this::released;
    Function<LazyHold, Object> cancelled = hold -> released(hold, null);
    return call(usingWhen, null, resource, use, complete, failed, cancelled);
  }

  /**
   * A Reactor publisher made by {@code start}, run on boundedElastic from a non-blocking thread.
   */
  private Object maybeElastic(Supplier<Object> start) {
    Supplier<Object> deferred = () -> onElasticWhenNonBlocking(start.get());
    return call(defer, null, deferred);
  }

  /** {@code mono} itself, or on boundedElastic when the thread subscribing must not block. */
  private Object onElasticWhenNonBlocking(Object mono) {
    return (Boolean) call(isInNonBlockingThread, null)
        ? call(subscribeOn, mono, call(boundedElastic, null))
        : mono;
  }

  private Object released(LazyHold hold, Throwable failure) {
    return maybeElastic(() -> call(fromRunnable, null, (Runnable) () -> hold.release(failure)));
  }

  /**
   * The body's result with this thread's holds (the subscription's own, and any it joined) in its
   * subscribers' Reactor context: a fenced result of the same name subscribed anywhere inside it,
   * on whatever thread, joins them (ADR 53). The key is context-propagation's, so Reactor's
   * automatic propagation, where the application enables it, restores the same holds.
   */
  @Override
  Object beforeSubscribe(Object body) {
    CarriedHolds holds = CarriedHolds.capture();
    return holds.isEmpty()
        ? body
        : call(contextWrite, body, call(contextOf, null, HOLDS_KEY, holds));
  }

  /**
   * The loss signal is {@code Sinks.empty()}. A {@code Mono} joins it with {@code or} (the first
   * signal of either wins, the other is cancelled); a {@code Flux} with {@code timeout(signal, item
   * -> signal)}: the signal never times out, and a timeout companion that fails cancels the Flux
   * and fails it ({@code takeUntilOther} would pass the failure on without cancelling the Flux).
   */
  @Override
  LossJoin newLossJoin() {
    try {
      ClassLoader loader = type.getClassLoader();
      Class<?> sinks = Class.forName("reactor.core.publisher.Sinks", false, loader);
      Class<?> empty = Class.forName("reactor.core.publisher.Sinks$Empty", false, loader);
      Class<?> mono = Class.forName(MONO, false, loader);
      Class<?> publisher = Class.forName("org.reactivestreams.Publisher", false, loader);
      Method newSignal = sinks.getMethod("empty");
      Method fail = empty.getMethod("tryEmitError", Throwable.class);
      Method asMono = empty.getMethod("asMono");
      boolean isMono = isMono();
      Method join =
          isMono
              ? type.getMethod("or", mono)
              : type.getMethod("timeout", publisher, Function.class);
      return new LossJoin(
          newSignal,
          fail,
          (body, signal) -> {
            Object other = call(asMono, signal);
            if (isMono) {
              return call(join, body, other);
            }
            Function<Object, Object> next = item -> other; // every item: still until the loss
            return call(join, body, other, next);
          });
    } catch (ReflectiveOperationException | LinkageError e) {
      throw unusable("cancel a " + type.getName() + " result on loss", type, e);
    }
  }

  /**
   * One subscription's acquire, between its start and the work taking the hold: whichever of the
   * acquire's end and the subscription's cancel comes second drops the hold.
   */
  private static final class PendingHold {
    private static final Object CANCELLED = new Object();
    private final AtomicReference<Object> slot = new AtomicReference<>();

    LazyHold acquired(LazyHold hold) {
      if (!slot.compareAndSet(null, hold)) {
        hold.drop(); // cancelled while it was acquired
      }
      return hold;
    }

    void cancelled() {
      if (slot.getAndSet(CANCELLED) instanceof LazyHold hold) {
        hold.drop(); // acquired, not yet taken by the work: never will be
      }
    }
  }
}
