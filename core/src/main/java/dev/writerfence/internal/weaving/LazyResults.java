package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLostException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Fenced methods whose result is lazy: a Reactor {@code Mono} or {@code Flux}, an RxJava 3 {@code
 * Single}, {@code Maybe}, {@code Completable}, {@code Flowable} or {@code Observable}. Such a
 * result describes work that runs when it is subscribed, so it is held per subscription, and the
 * method's body runs at subscription, inside the hold: the advice returns a result of the same type
 * which, on each subscription, acquires (with the call's request and busy retry; busy and
 * unavailable arrive as its error signal), then invokes the method and subscribes to what it
 * returned, and releases when that completes, fails or is cancelled. Never subscribed, it acquires
 * nothing; subscribed twice, it takes two holds. While subscribed, the lease is on the held-fence
 * stack of the thread that subscribes. A Reactor result also carries its holds to the tasks its
 * work hands to Reactor's schedulers (a schedule hook, installed once: {@value #SCHEDULE_HOOK}) and
 * in its subscribers' context (key {@code writer-fence.holds}), so a fenced result of the same name
 * subscribed anywhere inside the work joins the hold, even on a thread none of it reached (ADR 53).
 * The acquire may wait: it runs on the subscribing thread, or, for Reactor, on {@code
 * boundedElastic} when that thread must not block; so does the release.
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
 * <p>This class decides how a method's result is held and dispatches each call to the strategy of
 * the result's library: {@code ReactorResults} ({@code usingWhen}), {@code RxJava3Results} (the
 * type's {@code using} with an eager release), {@code SuspendFunctions} (Kotlin). No Reactor,
 * RxJava or Kotlin class is linked into core: each strategy reaches its library by reflection from
 * the class loader of the method's declared return type (for a suspend function, of its
 * continuation parameter; once per type, {@link ClassValue}), so one implementation serves the
 * application's copy of core and the agent's, whose relocated copy cannot see an application's
 * Reactor. Result types that cannot be held this way are refused ({@link #of}), naming the method
 * and the type.
 */
public final class LazyResults {
  /** The key of the Reactor schedule hook that carries holds to scheduled tasks. */
  public static final String SCHEDULE_HOOK = "writer-fence";

  /**
   * The libraries whose lazy types are held, one strategy each: a new library is one entry here.
   */
  private static final List<LazyResultSupport.Library> LIBRARIES =
      List.of(ReactorResults.LIBRARY, RxJava3Results.LIBRARY);

  /**
   * Refused result types, each with why, in the order they are tested: a subtype of one of these
   * cannot be held, unless it is a lazy type. These come first, then each library's, then {@link
   * #REFUSED_LAST}.
   */
  private static final List<Map.Entry<String, String>> REFUSED_FIRST =
      List.of(
          Map.entry(
              "java.util.concurrent.Future",
              "a Future that is not a CompletionStage gives no signal when its work ends; return a"
                  + " CompletionStage (or CompletableFuture), or a Mono"),
          Map.entry(
              "java.util.concurrent.Flow$Publisher",
              "no subscription of a java.util.concurrent.Flow.Publisher can be held; return a Mono"
                  + " or a Flux"),
          Map.entry(
              "org.reactivestreams.Publisher",
              "only Reactor's Mono and Flux and RxJava 3's Flowable are held among Reactive Streams"
                  + " publishers; return one of them"));

  private static final List<Map.Entry<String, String>> REFUSED_LAST =
      List.of(
          Map.entry(
              "kotlinx.coroutines.flow.Flow",
              "a Kotlin Flow is not held; collect it inside a fenced blocking method, or return a"
                  + " Flux"));

  private static final List<Map.Entry<String, String>> REFUSED = refusedTypes();

  /** Each lazy type's strategy as the type's class loader has its library, found once. */
  private static final ClassValue<LazyResultSupport> SUPPORTS =
      new ClassValue<>() {
        @Override
        protected LazyResultSupport computeValue(Class<?> type) {
          LazyResultSupport.Library library = library(type.getName());
          if (library == null) {
            throw new IllegalArgumentException(
                "writer-fence: " + type.getName() + " is not a lazy result type");
          }
          return library.support().apply(type);
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
    LazyResultSupport.Library library = library(returnTypeName);
    if (library != null) {
      String noSkip = library.noSkip().get(returnTypeName);
      if (noSkip != null && skip != null) {
        throw new IllegalArgumentException(
            "writer-fence: onBusy = SKIP is not allowed on "
                + where
                + ", which returns "
                + returnTypeName
                + ": "
                + noSkip);
      }
      return new LazyResult(where, returnTypeName, skip, cancelOnLoss);
    }
    if (returnTypeName.equals("void") || returnTypeName.indexOf('.') < 0) {
      return null; // void and the primitives
    }
    if (subtypeOf.test("java.util.concurrent.CompletionStage")) {
      return null;
    }
    for (Map.Entry<String, String> r : REFUSED) {
      if (subtypeOf.test(r.getKey())) {
        throw refused(where, returnTypeName, r.getValue());
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
    return library(type.getName()) != null;
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
        open.addAll(List.of(c.getInterfaces()));
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
    private final String typeName; // the lazy type's binary name; null: a Kotlin suspend function
    private final SkipOnBusy skip;
    private final boolean cancelOnLoss;

    private LazyResult(String where, String typeName, SkipOnBusy skip, boolean cancelOnLoss) {
      this.where = where;
      this.typeName = typeName;
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
      if (typeName == null) {
        throw new IllegalStateException(
            "writer-fence: " + where + " is a Kotlin suspend function: call it with its arguments");
      }
      Objects.requireNonNull(enter, "enter");
      Objects.requireNonNull(invocation, "invocation");
      Objects.requireNonNull(lostForCaller, "lostForCaller");
      return SUPPORTS.get(declaredReturnType).defer(this, enter, invocation, lostForCaller);
    }

    /**
     * @return {@code true} for a Kotlin {@code suspend} function (its last parameter is a {@code
     *     kotlin.coroutines.Continuation}), which is called with {@link #callSuspending}, not
     *     deferred
     */
    public boolean isSuspend() {
      return typeName == null;
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
      if (typeName != null) {
        throw new IllegalStateException("writer-fence: " + where + " is not a suspend function");
      }
      Objects.requireNonNull(continuationType, "continuationType");
      Objects.requireNonNull(args, "args");
      Objects.requireNonNull(enter, "enter");
      Objects.requireNonNull(invocation, "invocation");
      return SuspendFunctions.call(where, skip, continuationType, args, enter, invocation);
    }

    String where() {
      return where;
    }

    SkipOnBusy skip() {
      return skip;
    }

    boolean cancelOnLoss() {
      return cancelOnLoss;
    }

    @Override
    public String toString() {
      return typeName == null
          ? "hold " + where + " until the suspend function resumes its caller"
          : "hold "
              + where
              + " per subscription of its "
              + typeName
              + (cancelOnLoss ? ", cancelled on loss" : "");
    }
  }

  /** The library one of whose lazy types is named {@code typeName}, or {@code null}. */
  private static LazyResultSupport.Library library(String typeName) {
    for (LazyResultSupport.Library library : LIBRARIES) {
      if (library.typeNames().contains(typeName)) {
        return library;
      }
    }
    return null;
  }

  private static List<Map.Entry<String, String>> refusedTypes() {
    List<Map.Entry<String, String>> refused = new ArrayList<>(REFUSED_FIRST);
    for (LazyResultSupport.Library library : LIBRARIES) {
      refused.addAll(library.refused());
    }
    refused.addAll(REFUSED_LAST);
    return List.copyOf(refused);
  }
}
