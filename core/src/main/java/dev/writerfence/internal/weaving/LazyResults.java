package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceLostException;
import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFencesAccessor;
import dev.writerfence.internal.weaving.FencedMethods.SkipOnBusy;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Fenced methods whose result is lazy: a Reactor {@code Mono} or {@code Flux}, an RxJava 3 {@code
 * Single}, {@code Maybe}, {@code Completable}, {@code Flowable} or {@code Observable}. Such a
 * result describes work that runs when it is subscribed, so it is held per subscription, and the
 * method's body runs at subscription, inside the hold: the advice returns a result of the same type
 * which, on each subscription, acquires (with the call's request and busy retry; busy and
 * unavailable arrive as its error signal), then invokes the method and subscribes to what it
 * returned, and releases when that completes, fails or is cancelled (Reactor's {@code usingWhen},
 * RxJava's {@code using} with an eager release). Never subscribed, it acquires nothing; subscribed
 * twice, it takes two holds. While subscribed, the lease is on the held-fence stack of the thread
 * that subscribes, and a Reactor schedule hook, installed once ({@value #SCHEDULE_HOOK}), carries
 * it to the tasks that work hands to Reactor's schedulers. A Reactor result also subscribes the
 * body's result with those holds in its subscribers' context (key {@code writer-fence.holds}), and
 * enters inside the holds its own subscriber's context carries: a fenced result of the same name
 * subscribed anywhere inside the work joins the hold, even on a thread none of it reached (ADR 53).
 *
 * <p>The acquire may wait: it runs on the subscribing thread, or on Reactor's {@code
 * boundedElastic} scheduler when that thread must not block ({@code
 * Schedulers.isInNonBlockingThread()}); so does the release.
 *
 * <p>A method that asked to be interrupted on loss ({@code interruptOnLoss}) has no thread of its
 * own to interrupt: its work runs on whichever threads subscribe and schedule it. Instead, when the
 * lease a subscription runs under is lost (its own, or the outer hold's it joined), the
 * subscription to the method's work is cancelled at once and the subscriber gets a {@link
 * FenceLostException} naming the fence as its error signal, after the usual release; each type is
 * joined to a loss signal by its own operator ({@code Mono.or}, {@code Flux.timeout}, RxJava's
 * {@code takeUntil} and {@code ambWith}). The error arrives on the thread that tells of the loss.
 *
 * <p>A Kotlin {@code suspend} function (last parameter {@code kotlin.coroutines.Continuation}) is
 * held from its call until it resumes its caller ({@link LazyResult#callSuspending}): the call
 * acquires on the calling thread, blocking it while the fence is busy, as a blocking fenced call
 * does; the method runs with a continuation of the fence's that releases when the function
 * completes, fails or is cancelled, and then resumes the caller's. With kotlinx-coroutines on the
 * class path the hold is on each thread that resumes the function; without it, on the calling
 * thread only.
 *
 * <p>No Reactor, RxJava or Kotlin class is linked into core: each is reached by reflection from the
 * class loader of the method's declared return type (for a suspend function, of its continuation
 * parameter; once per type, {@link ClassValue}), so one implementation serves the application's
 * copy of core and the agent's, whose relocated copy cannot see an application's Reactor. Result
 * types that cannot be held this way are refused ({@link #of}), naming the method and the type.
 */
public final class LazyResults {
  /** The key of the Reactor schedule hook that carries holds to scheduled tasks. */
  public static final String SCHEDULE_HOOK = "writer-fence";

  /** Where a subscription's holds travel in its subscribers' Reactor context. */
  private static final String HOLDS_KEY = HeldFencesAccessor.KEY;

  /** What each lazy type is, by the binary name of the declared return type. */
  private enum Kind {
    MONO("reactor.core.publisher.Mono", "org.reactivestreams.Publisher"),
    FLUX("reactor.core.publisher.Flux", "org.reactivestreams.Publisher"),
    SINGLE("io.reactivex.rxjava3.core.Single", "io.reactivex.rxjava3.core.SingleSource"),
    MAYBE("io.reactivex.rxjava3.core.Maybe", "io.reactivex.rxjava3.core.MaybeSource"),
    COMPLETABLE(
        "io.reactivex.rxjava3.core.Completable", "io.reactivex.rxjava3.core.CompletableSource"),
    FLOWABLE("io.reactivex.rxjava3.core.Flowable", "org.reactivestreams.Publisher"),
    OBSERVABLE(
        "io.reactivex.rxjava3.core.Observable", "io.reactivex.rxjava3.core.ObservableSource");

    final String typeName;
    final String sourceName; // the interface whose one method, subscribe, the body's result has

    Kind(String typeName, String sourceName) {
      this.typeName = typeName;
      this.sourceName = sourceName;
    }

    boolean reactor() {
      return this == MONO || this == FLUX;
    }

    static Kind named(String typeName) {
      for (Kind k : values()) {
        if (k.typeName.equals(typeName)) {
          return k;
        }
      }
      return null;
    }
  }

  /** Refused result types: a subtype of one of these cannot be held, unless it is a lazy kind. */
  private static final String[][] REFUSED = {
    {
      "java.util.concurrent.Future",
      "a Future that is not a CompletionStage gives no signal when its work ends; return a"
          + " CompletionStage (or CompletableFuture), or a Mono"
    },
    {
      "java.util.concurrent.Flow$Publisher",
      "no subscription of a java.util.concurrent.Flow.Publisher can be held; return a Mono or a"
          + " Flux"
    },
    {
      "org.reactivestreams.Publisher",
      "only Reactor's Mono and Flux and RxJava 3's Flowable are held among Reactive Streams"
          + " publishers; return one of them"
    },
    {
      "io.reactivex.rxjava3.core.SingleSource",
      "only RxJava 3's Single, Maybe, Completable, Flowable and Observable themselves are held"
    },
    {
      "io.reactivex.rxjava3.core.MaybeSource",
      "only RxJava 3's Single, Maybe, Completable, Flowable and Observable themselves are held"
    },
    {
      "io.reactivex.rxjava3.core.CompletableSource",
      "only RxJava 3's Single, Maybe, Completable, Flowable and Observable themselves are held"
    },
    {
      "io.reactivex.rxjava3.core.ObservableSource",
      "only RxJava 3's Single, Maybe, Completable, Flowable and Observable themselves are held"
    },
    {
      "kotlinx.coroutines.flow.Flow",
      "a Kotlin Flow is not held; collect it inside a fenced blocking method, or return a Flux"
    },
  };

  private static final ClassValue<Bridge> BRIDGES =
      new ClassValue<>() {
        @Override
        protected Bridge computeValue(Class<?> type) {
          Kind kind = Kind.named(type.getName());
          if (kind == null) {
            throw new IllegalArgumentException(
                "writer-fence: " + type.getName() + " is not a lazy result type");
          }
          return new Bridge(kind, type);
        }
      };

  private LazyResults() {}

  /**
   * Enters the fence for one subscription: {@code FencedCalls.enter} with the call's request, made
   * when the fenced method was called (its fence name resolved and checked then).
   */
  @FunctionalInterface
  public interface Enter {
    /**
     * @return the entered call: acquired (its entry pushed on this thread) or joined
     * @throws RuntimeException busy, unavailable or interrupted, as {@code FencedCalls.enter}
     *     throws them (the agent: as the application's own exception classes)
     */
    FencedCall enter();
  }

  /** Invokes a fenced Kotlin suspend function with the arguments it is given. */
  @FunctionalInterface
  public interface SuspendInvocation {
    /**
     * @param args the call's arguments, a continuation of the fence's last in place of the
     *     caller's; never {@code null}
     * @return what the method returned: its value, or {@code COROUTINE_SUSPENDED}
     * @throws Throwable what the method threw
     */
    Object proceed(Object[] args) throws Throwable;

    /**
     * @return {@code true} when the invocation does not run the function but returns a Reactor
     *     {@code Mono} that runs it when subscribed, with the context of the continuation it was
     *     given (Spring AOP's own coroutine support, when kotlinx-coroutines-reactor is present):
     *     the hold then lasts until that {@code Mono} completes, fails or is cancelled
     */
    default boolean returnsMono() {
      return false;
    }
  }

  /**
   * Decides how a fenced method's result is held, from its declared types; a lazy result is not
   * cancelled on loss. See {@link #of(String, String, Predicate, String, SkipOnBusy, boolean)}.
   *
   * @param where the method, for messages; never {@code null}
   * @param returnTypeName the binary name of the declared return type; never {@code null}
   * @param subtypeOf answers whether the declared return type is that named type or a subtype of it
   * @param lastParameterTypeName the binary name of the last parameter's type, or {@code null}
   * @param skip what a call does when the fence stays busy, or {@code null} when busy is an error
   * @return the lazy result of the method, or {@code null} when its result is held the usual way
   * @throws IllegalArgumentException naming the method and the type when the result cannot be held
   */
  public static LazyResult of(
      String where,
      String returnTypeName,
      Predicate<String> subtypeOf,
      String lastParameterTypeName,
      SkipOnBusy skip) {
    return of(where, returnTypeName, subtypeOf, lastParameterTypeName, skip, false);
  }

  /**
   * Decides how a fenced method's result is held, from its declared types.
   *
   * @param where the method, for messages; never {@code null}
   * @param returnTypeName the binary name of the declared return type ({@code reactor.core
   *     .publisher.Mono}, {@code void}); never {@code null}
   * @param subtypeOf answers whether the declared return type is that named type or a subtype of it
   *     (a class, or an interface, named as {@link Class#getName()} names it); never {@code null}
   * @param lastParameterTypeName the binary name of the method's last parameter's type, or {@code
   *     null} when it has none
   * @param skip what a call does when the fence stays busy ({@code onBusy = SKIP}), or {@code null}
   *     when busy is an error
   * @param cancelOnLoss the method asked to be interrupted on loss ({@code interruptOnLoss}): a
   *     lazy result's subscription is then cancelled when its lease is lost, and ends in {@link
   *     FenceLostException}; for any other result this is the caller's to honour
   * @return the lazy result of the method (a Kotlin {@code suspend} function's too: {@link
   *     LazyResult#isSuspend()}), or {@code null} when its result is held the usual way (until the
   *     method returns, or until a returned {@code CompletionStage} completes)
   * @throws IllegalArgumentException naming the method and the type when the result cannot be held:
   *     a {@code Future} that is not a {@code CompletionStage}, a {@code Flow.Publisher}, another
   *     Reactive Streams {@code Publisher}, a Kotlin {@code Flow}; or {@code onBusy = SKIP} on a
   *     {@code Single}, which must emit
   */
  public static LazyResult of(
      String where,
      String returnTypeName,
      Predicate<String> subtypeOf,
      String lastParameterTypeName,
      SkipOnBusy skip,
      boolean cancelOnLoss) {
    Objects.requireNonNull(where, "where");
    Objects.requireNonNull(returnTypeName, "returnTypeName");
    Objects.requireNonNull(subtypeOf, "subtypeOf");
    if (SuspendFunctions.CONTINUATION.equals(lastParameterTypeName)) {
      if (cancelOnLoss) {
        // A lost lease does not cancel a coroutine yet: refused rather than ignored.
        throw new IllegalArgumentException(
            "writer-fence: interruptOnLoss is not allowed on "
                + where
                + ", a Kotlin suspend function: a lost lease does not cancel its coroutine; stop"
                + " the work from lease.onLost (WriterFence.current inside the work gives the"
                + " lease)");
      }
      return new LazyResult(where, null, skip, false);
    }
    Kind kind = Kind.named(returnTypeName);
    if (kind != null) {
      if (kind == Kind.SINGLE && skip != null) {
        throw new IllegalArgumentException(
            "writer-fence: onBusy = SKIP is not allowed on "
                + where
                + ", which returns "
                + returnTypeName
                + ": a Single must emit one value and a skipped call has none; return a Maybe,"
                + " or keep onBusy = THROW");
      }
      return new LazyResult(where, kind, skip, cancelOnLoss);
    }
    if (returnTypeName.equals("void") || returnTypeName.indexOf('.') < 0) {
      return null; // void and the primitives
    }
    if (subtypeOf.test("java.util.concurrent.CompletionStage")) {
      return null;
    }
    for (String[] r : REFUSED) {
      if (subtypeOf.test(r[0])) {
        throw refused(where, returnTypeName, r[1]);
      }
    }
    return null;
  }

  /**
   * Whether a call of a fenced Kotlin {@code suspend} function is its state machine resuming a call
   * the fence already holds: Kotlin resumes a suspend function by calling its method again with its
   * own continuation. Advice woven into the method sees that call and must let it through unfenced.
   *
   * @param lastArgument the call's last argument, its continuation
   * @return {@code true} when the call resumes a fenced call
   */
  public static boolean resumesAFencedCall(Object lastArgument) {
    return SuspendFunctions.isResumption(lastArgument);
  }

  /**
   * @param type a declared return type; never {@code null}
   * @return {@code true} when a fenced method returning it is held per subscription
   */
  public static boolean isLazy(Class<?> type) {
    return Kind.named(type.getName()) != null;
  }

  /**
   * A subtype test over a loaded class's names, for {@link #of}: it compares names, so a type of
   * another class loader counts too, and nothing is loaded.
   *
   * @param type the declared return type; never {@code null}
   * @return whether {@code type} is the named type or a subtype of it
   */
  public static Predicate<String> subtypeOf(Class<?> type) {
    return name -> {
      Deque<Class<?>> open = new ArrayDeque<>();
      Set<Class<?>> seen = new HashSet<>();
      open.add(type);
      while (!open.isEmpty()) {
        Class<?> c = open.poll();
        if (!seen.add(c)) {
          continue;
        }
        if (c.getName().equals(name)) {
          return true;
        }
        if (c.getSuperclass() != null) {
          open.add(c.getSuperclass());
        }
        open.addAll(java.util.List.of(c.getInterfaces()));
      }
      return false;
    };
  }

  private static IllegalArgumentException refused(String where, String type, String why) {
    return new IllegalArgumentException(
        "writer-fence: @WriterFenced cannot hold the result of "
            + where
            + ", which returns "
            + type
            + ": "
            + why
            + "; the method does not run");
  }

  /**
   * The lazy result of one fenced method: how each call's result is deferred. Made once per method.
   */
  public static final class LazyResult {
    private final String where;
    private final Kind kind; // null: a Kotlin suspend function
    private final SkipOnBusy skip;
    private final boolean cancelOnLoss;

    private LazyResult(String where, Kind kind, SkipOnBusy skip, boolean cancelOnLoss) {
      this.where = where;
      this.kind = kind;
      this.skip = skip;
      this.cancelOnLoss = cancelOnLoss;
    }

    /**
     * One call of the method: a result of its declared type that enters the fence and invokes the
     * method at each subscription, and releases when that subscription ends. Nothing is acquired
     * and the method does not run until then.
     *
     * @param declaredReturnType the method's declared return type, the lazy type itself, from the
     *     class loader whose Reactor or RxJava the method uses; never {@code null}
     * @param enter enters the fence for one subscription; never {@code null}
     * @param invocation invokes the method; may be called once per subscription, on the thread that
     *     subscribes; never {@code null}
     * @return the deferred result, an instance of {@code declaredReturnType}
     * @throws IllegalStateException when the lazy type's library cannot be reached from that class
     *     loader
     */
    public Object defer(Class<?> declaredReturnType, Enter enter, FencedInvocation invocation) {
      return defer(declaredReturnType, enter, invocation, lost -> lost);
    }

    /**
     * The same as {@link #defer(Class, Enter, FencedInvocation)}, with the error signal a
     * subscription cancelled on loss ends with as the caller's class (the agent translates its
     * relocated {@link FenceLostException} to the application's).
     *
     * @param declaredReturnType as above; never {@code null}
     * @param enter as above; never {@code null}
     * @param invocation as above; never {@code null}
     * @param lostForCaller makes the error signal of a subscription cancelled on loss from this
     *     copy of core's exception; never {@code null}
     * @return the deferred result, an instance of {@code declaredReturnType}
     * @throws IllegalStateException when the lazy type's library cannot be reached from that class
     *     loader
     */
    public Object defer(
        Class<?> declaredReturnType,
        Enter enter,
        FencedInvocation invocation,
        Function<? super FenceLostException, ? extends RuntimeException> lostForCaller) {
      if (kind == null) {
        throw new IllegalStateException(
            "writer-fence: " + where + " is a Kotlin suspend function: call it with its arguments");
      }
      Objects.requireNonNull(enter, "enter");
      Objects.requireNonNull(invocation, "invocation");
      Objects.requireNonNull(lostForCaller, "lostForCaller");
      Bridge bridge = BRIDGES.get(declaredReturnType);
      return bridge.defer(this, enter, invocation, lostForCaller);
    }

    /**
     * @return {@code true} for a Kotlin {@code suspend} function (its last parameter is a {@code
     *     kotlin.coroutines.Continuation}), which is called with {@link #callSuspending}, not
     *     deferred
     */
    public boolean isSuspend() {
      return kind == null;
    }

    /**
     * One call of a Kotlin {@code suspend} function: acquires now, on the calling thread (blocking
     * it, as a blocking fenced call does), and invokes the method with a continuation of the
     * fence's in place of the caller's, which releases when the function completes, fails or is
     * cancelled, and then resumes the caller's; a function that returns without suspending, or
     * throws, is released at once. While the function runs the lease is on its thread: on the
     * calling thread until it suspends, and, when kotlinx-coroutines is on the class path, on each
     * thread that resumes it.
     *
     * @param continuationType the method's last parameter type, from the class loader whose Kotlin
     *     the method uses; never {@code null}
     * @param args the call's arguments, the caller's continuation last; never {@code null}
     * @param enter acquires, or joins a hold on this thread; never {@code null}
     * @param invocation invokes the method with the arguments it is given; never {@code null}
     * @return what the method returned ({@code COROUTINE_SUSPENDED} or its value), or {@code null}
     *     for a call skipped when busy ({@code onBusy = SKIP})
     * @throws Throwable busy, unavailable or interrupted before the method runs; what it threw
     * @throws IllegalStateException when this is not a suspend function, or Kotlin's standard
     *     library cannot be reached from the continuation type's class loader
     */
    public Object callSuspending(
        Class<?> continuationType, Object[] args, Enter enter, SuspendInvocation invocation)
        throws Throwable {
      if (kind != null) {
        throw new IllegalStateException("writer-fence: " + where + " is not a suspend function");
      }
      Objects.requireNonNull(continuationType, "continuationType");
      Objects.requireNonNull(args, "args");
      Objects.requireNonNull(enter, "enter");
      Objects.requireNonNull(invocation, "invocation");
      return SuspendFunctions.call(where, skip, continuationType, args, enter, invocation);
    }

    @Override
    public String toString() {
      return kind == null
          ? "hold " + where + " until the suspend function resumes its caller"
          : "hold "
              + where
              + " per subscription of its "
              + kind.typeName
              + (cancelOnLoss ? ", cancelled on loss" : "");
    }
  }

  /**
   * One subscription's hold, from its acquire to its release; {@link #SKIPPED} when the fence
   * stayed busy and the call skips. A subscription cancelled on loss watches the lease it runs
   * under from here ({@link #watchLoss}) until its release.
   */
  static final class Hold {
    static final Hold SKIPPED = new Hold(null, CarriedHolds.none());

    private final FencedCall call; // null: skipped
    private final HeldFenceStack.Entry entry; // null: joined or skipped
    private final CarriedHolds outer; // what a joined subscription runs inside
    private volatile FenceLease.Registration lossWatch; // null: not watched

    /** Whether the work took this hold, or a cancel before that dropped it: once, either way. */
    private final AtomicInteger stage = new AtomicInteger(NEW);

    private final AtomicBoolean released = new AtomicBoolean();

    private static final int NEW = 0;
    private static final int USED = 1;
    private static final int DROPPED = 2;

    private Hold(FencedCall call, CarriedHolds outer) {
      this.call = call;
      this.entry = call == null ? null : call.entry();
      this.outer = outer;
    }

    /**
     * Enters, and takes the acquired lease off the entering thread: it travels with the work.
     *
     * @param outer the holds of an enclosing subscription, from the subscriber's Reactor context
     *     ({@link CarriedHolds#none()} elsewhere): entered inside them, a call of the same name
     *     joins that hold even on a thread that none of it reached
     */
    static Hold enter(Enter enter, SkipOnBusy skip, CarriedHolds outer) {
      FencedCall call;
      CarriedHolds.Scope inside = outer.restore();
      try {
        call = enter.enter();
      } catch (RuntimeException e) {
        // Busy as this copy of core's class, or as the application's (the agent's enter).
        if (skip == null || !isBusy(e)) {
          throw e;
        }
        skip.skipped(e.getMessage());
        return SKIPPED;
      } finally {
        inside.close();
      }
      Hold hold = new Hold(call, outer);
      if (hold.entry != null) {
        HeldFenceStack.pop(hold.entry);
      }
      return hold;
    }

    /**
     * Puts the lease on the subscribing thread while the body's result is subscribed: the acquired
     * one, or for a joined subscription the outer holds it joined.
     *
     * @return what to close, on this thread, when the body's result is subscribed
     */
    CarriedHolds.Scope push() {
      if (entry != null) {
        HeldFenceStack.push(entry);
        return () -> HeldFenceStack.pop(entry);
      }
      return outer.restore();
    }

    /**
     * Tells {@code lost} once of the loss of the lease this subscription runs under (its own, or
     * the outer hold's it joined), until the hold is released; at once, on this thread, when that
     * lease is lost already.
     *
     * @throws UnsupportedOperationException when that lease cannot tell of a loss (another, older
     *     copy of core holds it): a subscription that asked to be cancelled on loss then fails
     *     before the method runs, rather than run unwatched
     */
    void watchLoss(Consumer<FenceLostException> lost) {
      FenceLease lease = call.underLease();
      if (lease == null) {
        throw new UnsupportedOperationException(
            "writer-fence: "
                + this
                + " cannot tell of its lease's loss, so its subscription cannot be cancelled on"
                + " loss; the method does not run");
      }
      lossWatch = lease.onLost(lost);
    }

    /** The acquired lease's entry, or {@code null} for a joined or skipped hold. */
    HeldFenceStack.Entry entry() {
      return entry;
    }

    /**
     * Releases an acquired lease, or lets go of the outer hold a joined subscription pinned; never
     * throws (a failure goes to {@code failure} or the log). A loss after this ends nothing.
     */
    /**
     * Takes the hold for the work: only once, and never after {@link #drop()}.
     *
     * @return {@code false} when a cancel dropped it first: the work must not run
     */
    boolean claim() {
      return call == null || stage.compareAndSet(NEW, USED);
    }

    /**
     * Releases a hold its subscription was cancelled before taking; no-op once the work took it.
     */
    void drop() {
      if (call != null && stage.compareAndSet(NEW, DROPPED)) {
        release(null);
      }
    }

    void release(Throwable failure) {
      if (!released.compareAndSet(false, true)) {
        return; // dropped on cancel, then told of the end by usingWhen: released once
      }
      FenceLease.Registration watch = lossWatch;
      if (watch != null) {
        watch.cancel();
      }
      if (call != null) {
        call.exit(null, failure, Void.class);
      }
    }

    @Override
    public String toString() {
      return call == null ? "skipped hold" : "hold of " + (entry == null ? "an outer call" : entry);
    }
  }

  /**
   * One Reactor subscription's acquire, between its start and the work taking the hold: whichever
   * of the acquire's end and the subscription's cancel comes second drops the hold.
   */
  private static final class PendingHold {
    private static final Object CANCELLED = new Object();
    private final AtomicReference<Object> slot = new AtomicReference<>();

    Hold acquired(Hold hold) {
      if (!slot.compareAndSet(null, hold)) {
        hold.drop(); // cancelled while it was acquired
      }
      return hold;
    }

    void cancelled() {
      if (slot.getAndSet(CANCELLED) instanceof Hold hold) {
        hold.drop(); // acquired, not yet taken by the work: never will be
      }
    }
  }

  /** Busy thrown as another copy of core's class (the agent's relocated one, or the other way). */
  private static boolean isBusy(Throwable e) {
    for (Class<?> c = e.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getSimpleName().equals("WriterFenceBusyException")) {
        return true;
      }
    }
    return false;
  }

  /**
   * One lazy type as its own class loader has it: the reflective handles a deferral needs, found
   * once.
   */
  static final class Bridge {
    private final Kind kind;
    private final Class<?> type;
    private final Class<?> source;
    private final Method sourceSubscribe;
    private final Method error;
    private final Method empty;
    // Reactor
    private Method usingWhen;
    private Method defer;
    private Method fromCallable;
    private Method fromRunnable;
    private Method subscribeOn;
    private Method boundedElastic;
    private Method isInNonBlockingThread;
    private Method wrap; // Mono.fromDirect or Flux.from
    private Method doOnDiscard;
    private Method doOnCancel;
    private Method deferContextual;
    private Method contextGetOrDefault;
    private Method contextWrite;
    private Method contextOf;
    // RxJava
    private Method using;
    private Class<?> rxSupplier;
    private Class<?> rxFunction;
    private Class<?> rxConsumer;
    private volatile LossJoin lossJoin; // found at its first use

    Bridge(Kind kind, Class<?> type) {
      this.kind = kind;
      this.type = type;
      try {
        ClassLoader loader = type.getClassLoader();
        this.source = Class.forName(kind.sourceName, false, loader);
        this.sourceSubscribe = single(source, "subscribe");
        this.error = type.getMethod("error", Throwable.class);
        // A Single has no empty value: onBusy = SKIP is refused on it (see of).
        this.empty =
            kind == Kind.SINGLE
                ? null
                : type.getMethod(kind == Kind.COMPLETABLE ? "complete" : "empty");
        if (kind.reactor()) {
          Class<?> mono = Class.forName("reactor.core.publisher.Mono", false, loader);
          Class<?> schedulers = Class.forName("reactor.core.scheduler.Schedulers", false, loader);
          Class<?> scheduler = Class.forName("reactor.core.scheduler.Scheduler", false, loader);
          usingWhen =
              type.getMethod(
                  "usingWhen",
                  source,
                  Function.class,
                  Function.class,
                  BiFunction.class,
                  Function.class);
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
          wrap =
              kind == Kind.MONO
                  ? mono.getMethod("fromDirect", source)
                  : type.getMethod("from", source);
          installScheduleHook(schedulers);
        } else {
          rxSupplier = Class.forName("io.reactivex.rxjava3.functions.Supplier", false, loader);
          rxFunction = Class.forName("io.reactivex.rxjava3.functions.Function", false, loader);
          rxConsumer = Class.forName("io.reactivex.rxjava3.functions.Consumer", false, loader);
          using = type.getMethod("using", rxSupplier, rxFunction, rxConsumer, boolean.class);
        }
      } catch (ReflectiveOperationException | LinkageError e) {
        throw unusable("hold a " + kind.typeName + " result", type, e);
      }
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

    /**
     * Reactor runs scheduled tasks on its own threads: carry the scheduling thread's holds to them,
     * so work a subscription hands to a scheduler runs inside the subscription's hold.
     */
    private static void installScheduleHook(Class<?> schedulers)
        throws ReflectiveOperationException {
      Function<Runnable, Runnable> carry = task -> CarriedHolds.capture().wrap(task);
      schedulers
          .getMethod("onScheduleHook", String.class, Function.class)
          .invoke(null, SCHEDULE_HOOK, carry);
    }

    Object defer(
        LazyResult result,
        Enter enter,
        FencedInvocation invocation,
        Function<? super FenceLostException, ? extends RuntimeException> lost) {
      if (kind.reactor()) {
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
              Callable<Hold> acquire =
                  () -> pending.acquired(Hold.enter(enter, result.skip, outer));
              Object acquiring = onElasticWhenNonBlocking(call(fromCallable, null, acquire));
              return call(doOnCancel, acquiring, (Runnable) pending::cancelled);
            };
        // A hold Reactor discards (acquired for a subscription cancelled meanwhile): release it.
        Consumer<Hold> dropped = Hold::drop;
        Object resource =
            call(doOnDiscard, call(deferContextual, null, acquireInContext), Hold.class, dropped);
        Function<Hold, Object> use =
            hold ->
                hold == Hold.SKIPPED || !hold.claim()
                    ? call(empty, null)
                    : endedByLoss(
                        result,
                        hold,
                        call(wrap, null, subscription(result, hold, invocation)),
                        lost);
        Function<Hold, Object> complete = hold -> released(hold, null);
        BiFunction<Hold, Throwable, Object> failed = this::released;
        Function<Hold, Object> cancelled = hold -> released(hold, null);
        return call(usingWhen, null, resource, use, complete, failed, cancelled);
      }
      Object supplier =
          implement(rxSupplier, "get", args -> Hold.enter(enter, result.skip, CarriedHolds.none()));
      Object use =
          implement(
              rxFunction,
              "apply",
              args ->
                  args[0] == Hold.SKIPPED
                      ? call(empty, null)
                      : endedByLoss(
                          result,
                          (Hold) args[0],
                          subscription(result, (Hold) args[0], invocation),
                          lost));
      Object release =
          implement(
              rxConsumer,
              "accept",
              args -> {
                ((Hold) args[0]).release(null);
                return null;
              });
      return call(using, null, supplier, use, release, true);
    }

    /**
     * What the hold's subscription subscribes to: the body's result itself, or, for a call that
     * asked to be cancelled on loss, that result ended by the loss of the hold's lease. The loss is
     * watched from here, before the body's result is subscribed, until the hold's release.
     *
     * @param body the body's result: a {@code Mono} or {@code Flux}, or an RxJava source
     */
    private Object endedByLoss(
        LazyResult result,
        Hold hold,
        Object body,
        Function<? super FenceLostException, ? extends RuntimeException> lost) {
      if (!result.cancelOnLoss) {
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
        j = new LossJoin(kind, type); // found at the first use: a type without it still holds
        lossJoin = j;
      }
      return j;
    }

    /**
     * How a subscription's work ends on its lease's loss, for one lazy type. Each hold gets a
     * one-shot signal that never emits nor completes and only fails, with the {@link
     * FenceLostException}, when the lease is lost; the body's result is joined to it by an operator
     * of the type that, when the signal fails, cancels (disposes) the body's subscription and
     * passes the failure on, and that cancels the signal's subscription when the body ends first:
     *
     * <ul>
     *   <li>the signal: Reactor's {@code Sinks.empty()}, RxJava's {@code CompletableSubject}; both
     *       keep the failure, so a join subscribed after the loss fails at once;
     *   <li>{@code Mono}: {@code or} (the first signal of either wins, the other is cancelled);
     *   <li>{@code Flux}: {@code timeout(signal, item -> signal)}: the signal never times out, and
     *       a timeout companion that fails cancels the Flux and fails it ({@code takeUntilOther}
     *       would pass the failure on without cancelling the Flux);
     *   <li>{@code Flowable}, {@code Observable}, {@code Maybe}: {@code takeUntil} the signal as
     *       the type's source; {@code Single}: {@code takeUntil(CompletableSource)}; {@code
     *       Completable}: {@code ambWith}: each disposes the body when the signal fails.
     * </ul>
     *
     * The join runs inside the hold's {@code usingWhen} or {@code using}, so the failure reaches
     * the release as any failure of the work does, and the subscriber after it.
     */
    static final class LossJoin {
      private final Kind kind;
      private final Method newSignal; // Sinks.empty(), CompletableSubject.create()
      private final Method fail; // Sinks.Empty#tryEmitError, CompletableSubject#onError
      private final Method asSource; // the signal as what the join takes; null: the signal itself
      private final Method wrapBody; // an RxJava source as the type; null: Reactor's is wrapped
      private final Method join;

      LossJoin(Kind kind, Class<?> type) {
        this.kind = kind;
        try {
          ClassLoader loader = type.getClassLoader();
          if (kind.reactor()) {
            Class<?> sinks = Class.forName("reactor.core.publisher.Sinks", false, loader);
            Class<?> empty = Class.forName("reactor.core.publisher.Sinks$Empty", false, loader);
            Class<?> mono = Class.forName("reactor.core.publisher.Mono", false, loader);
            Class<?> publisher = Class.forName("org.reactivestreams.Publisher", false, loader);
            newSignal = sinks.getMethod("empty");
            fail = empty.getMethod("tryEmitError", Throwable.class);
            asSource = empty.getMethod("asMono");
            wrapBody = null;
            join =
                kind == Kind.MONO
                    ? type.getMethod("or", mono)
                    : type.getMethod("timeout", publisher, Function.class);
          } else {
            Class<?> subject =
                Class.forName("io.reactivex.rxjava3.subjects.CompletableSubject", false, loader);
            Class<?> completable =
                Class.forName("io.reactivex.rxjava3.core.Completable", false, loader);
            Class<?> completableSource =
                Class.forName("io.reactivex.rxjava3.core.CompletableSource", false, loader);
            Class<?> source = Class.forName(kind.sourceName, false, loader);
            newSignal = subject.getMethod("create");
            fail = subject.getMethod("onError", Throwable.class);
            wrapBody = type.getMethod(kind == Kind.FLOWABLE ? "fromPublisher" : "wrap", source);
            switch (kind) {
              case FLOWABLE, OBSERVABLE, MAYBE -> {
                asSource =
                    completable.getMethod(
                        switch (kind) {
                          case FLOWABLE -> "toFlowable";
                          case OBSERVABLE -> "toObservable";
                          default -> "toMaybe";
                        });
                join = type.getMethod("takeUntil", source);
              }
              case SINGLE -> {
                asSource = null;
                join = type.getMethod("takeUntil", completableSource);
              }
              default -> {
                asSource = null;
                join = type.getMethod("ambWith", completableSource);
              }
            }
          }
        } catch (ReflectiveOperationException | LinkageError e) {
          throw unusable("cancel a " + kind.typeName + " result on loss", type, e);
        }
      }

      /** A new one-shot loss signal, for one hold. */
      Object signal() {
        return call(newSignal, null);
      }

      /** Fails the signal, once: its join cancels the body and fails with {@code lost}. */
      void fail(Object signal, RuntimeException lost) {
        call(fail, signal, lost);
      }

      /** The body's result, ended when {@code signal} fails. */
      Object join(Object body, Object signal) {
        Object typed = wrapBody == null ? body : call(wrapBody, null, body);
        Object other = asSource == null ? signal : call(asSource, signal);
        if (kind == Kind.FLUX) {
          Function<Object, Object> next = item -> other; // every item: still until the loss
          return call(join, typed, other, next);
        }
        return call(join, typed, other);
      }
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

    private Object released(Hold hold, Throwable failure) {
      return maybeElastic(() -> call(fromRunnable, null, (Runnable) () -> hold.release(failure)));
    }

    /**
     * The source one subscription subscribes to: it invokes the method and subscribes to its result
     * with the hold's lease on the subscribing thread.
     */
    private Object subscription(LazyResult result, Hold hold, FencedInvocation invocation) {
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
                          + result.where
                          + " returned null instead of a "
                          + kind.typeName);
                }
              } catch (Throwable t) {
                body = call(error, null, t);
              }
              if (kind.reactor()) {
                body = inHoldsContext(body);
              }
              call(sourceSubscribe, body, args[0]);
              return null;
            } finally {
              held.close();
            }
          });
    }

    /**
     * The body's result with this thread's holds (the subscription's own, and any it joined) in its
     * subscribers' Reactor context: a fenced result of the same name subscribed anywhere inside it,
     * on whatever thread, joins them (ADR 53). The key is context-propagation's, so Reactor's
     * automatic propagation, where the application enables it, restores the same holds.
     */
    private Object inHoldsContext(Object body) {
      CarriedHolds holds = CarriedHolds.capture();
      return holds.isEmpty()
          ? body
          : call(contextWrite, body, call(contextOf, null, HOLDS_KEY, holds));
    }

    /** An instance of one of the library's single-method interfaces, in its class loader. */
    private static Object implement(Class<?> iface, String method, Body body) {
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

    @FunctionalInterface
    private interface Body {
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
      return kind.typeName + " of " + type.getClassLoader();
    }
  }
}
