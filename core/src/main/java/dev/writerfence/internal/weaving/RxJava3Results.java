package dev.writerfence.internal.weaving;

import dev.writerfence.FenceLostException;
import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.internal.weaving.LazyResults.Enter;
import dev.writerfence.internal.weaving.LazyResults.LazyResult;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * RxJava 3's {@code Single}, {@code Maybe}, {@code Completable}, {@code Flowable} and {@code
 * Observable} held per subscription ({@link LazyResults}), through the type's {@code using} with an
 * eager release: the acquire is the resource, on the subscribing thread; the method's work the
 * source; the release runs when it completes, fails or is disposed. RxJava's schedulers carry no
 * holds and no subscriber context: the lease is on the subscribing thread while the body's result
 * is subscribed.
 *
 * <p>RxJava is reached by reflection from the class loader of the declared return type.
 */
final class RxJava3Results extends LazyResultSupport {
  private static final String CORE = "io.reactivex.rxjava3.core.";
  private static final String ONLY_THE_TYPES =
      "only RxJava 3's Single, Maybe, Completable, Flowable and Observable themselves are held";

  /** RxJava 3's lazy types, and its other sources, which are refused. */
  static final Library LIBRARY =
      new Library(
          Arrays.stream(Type.values()).map(t -> t.typeName).toList(),
          Map.of(
              Type.SINGLE.typeName,
              "a Single must emit one value and a skipped call has none; return a Maybe, or keep"
                  + " onBusy = THROW"),
          List.of(
              Map.entry(CORE + "SingleSource", ONLY_THE_TYPES),
              Map.entry(CORE + "MaybeSource", ONLY_THE_TYPES),
              Map.entry(CORE + "CompletableSource", ONLY_THE_TYPES),
              Map.entry(CORE + "ObservableSource", ONLY_THE_TYPES)),
          RxJava3Results::support);

  /**
   * One lazy type: the source interface its body's result has, its empty value, and how it is ended
   * on loss. The loss signal is a {@code CompletableSubject}; {@code Flowable}, {@code Observable}
   * and {@code Maybe} join it with {@code takeUntil}, the signal converted to the type's source;
   * {@code Single} with {@code takeUntil(CompletableSource)}; {@code Completable} with {@code
   * ambWith}: each disposes the body when the signal fails.
   */
  private enum Type {
    SINGLE("Single", CORE + "SingleSource", null, null, "takeUntil"),
    MAYBE("Maybe", CORE + "MaybeSource", "empty", "toMaybe", "takeUntil"),
    COMPLETABLE("Completable", CORE + "CompletableSource", "complete", null, "ambWith"),
    FLOWABLE("Flowable", "org.reactivestreams.Publisher", "empty", "toFlowable", "takeUntil"),
    OBSERVABLE("Observable", CORE + "ObservableSource", "empty", "toObservable", "takeUntil");

    final String typeName;
    final String sourceName; // the interface whose one method, subscribe, the body's result has
    final String emptyName; // null: a Single has no empty value (onBusy = SKIP is refused on it)
    final String signalAs; // Completable's conversion the join takes; null: a CompletableSource
    final String joinName;

    Type(String simpleName, String sourceName, String emptyName, String signalAs, String joinName) {
      this.typeName = CORE + simpleName;
      this.sourceName = sourceName;
      this.emptyName = emptyName;
      this.signalAs = signalAs;
      this.joinName = joinName;
    }

    static Type named(String typeName) {
      for (Type t : values()) {
        if (t.typeName.equals(typeName)) {
          return t;
        }
      }
      throw new IllegalArgumentException("writer-fence: " + typeName + " is not RxJava 3's");
    }
  }

  private final Type kind;
  private final Method using;
  private final Class<?> rxSupplier;
  private final Class<?> rxFunction;
  private final Class<?> rxConsumer;

  private static LazyResultSupport support(Class<?> type) {
    Type kind = Type.named(type.getName());
    try {
      return new RxJava3Results(kind, type);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw unusable("hold a " + type.getName() + " result", type, e);
    }
  }

  private RxJava3Results(Type kind, Class<?> type) throws ReflectiveOperationException {
    super(type, kind.sourceName, kind.emptyName);
    this.kind = kind;
    ClassLoader loader = type.getClassLoader();
    rxSupplier = Class.forName("io.reactivex.rxjava3.functions.Supplier", false, loader);
    rxFunction = Class.forName("io.reactivex.rxjava3.functions.Function", false, loader);
    rxConsumer = Class.forName("io.reactivex.rxjava3.functions.Consumer", false, loader);
    using = type.getMethod("using", rxSupplier, rxFunction, rxConsumer, boolean.class);
  }

  @Override
  Object defer(
      LazyResult result,
      Enter enter,
      FencedInvocation invocation,
      Function<? super FenceLostException, ? extends RuntimeException> lost) {
    Object supplier =
        implement(
            rxSupplier, "get", args -> LazyHold.enter(enter, result.skip(), CarriedHolds.none()));
    Object use =
        implement(
            rxFunction,
            "apply",
            args ->
                args[0] == LazyHold.SKIPPED
                    ? empty()
                    : endedByLoss(
                        result,
                        (LazyHold) args[0],
                        subscription(result, (LazyHold) args[0], invocation),
                        lost));
    Object release =
        implement(
            rxConsumer,
            "accept",
            args -> {
              ((LazyHold) args[0]).release(null);
              return null;
            });
    return call(using, null, supplier, use, release, true);
  }

  @Override
  LossJoin newLossJoin() {
    try {
      ClassLoader loader = type.getClassLoader();
      Class<?> subject =
          Class.forName("io.reactivex.rxjava3.subjects.CompletableSubject", false, loader);
      Class<?> completable = Class.forName(CORE + "Completable", false, loader);
      Class<?> completableSource = Class.forName(CORE + "CompletableSource", false, loader);
      Method newSignal = subject.getMethod("create");
      Method fail = subject.getMethod("onError", Throwable.class);
      Method wrapBody = type.getMethod(kind == Type.FLOWABLE ? "fromPublisher" : "wrap", source);
      Method asSource = kind.signalAs == null ? null : completable.getMethod(kind.signalAs);
      Method join =
          type.getMethod(kind.joinName, kind.signalAs == null ? completableSource : source);
      return new LossJoin(
          newSignal,
          fail,
          (body, signal) ->
              call(
                  join,
                  call(wrapBody, null, body),
                  asSource == null ? signal : call(asSource, signal)));
    } catch (ReflectiveOperationException | LinkageError e) {
      throw unusable("cancel a " + type.getName() + " result on loss", type, e);
    }
  }
}
