package dev.writerfence.internal.weaving;

import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.retry.BusyRetryPolicy;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns {@link WriterFenced} on a method into a ready {@link FencedMethod}, which enters the fence
 * for each call. Shared by every weaving mode, so the same annotation means the same fenced call
 * everywhere. The annotation, its name template ({@link FenceNameTemplate}) and its retry values
 * are read and checked once per method; a call only fills in the name's placeholders, checks the
 * name and enters the fence with the values ready, without building a {@link FenceRequest}.
 *
 * <p>With {@code onBusy = SKIP} a call that stays busy through its wait does not run the method and
 * returns {@link SkipOnBusy}'s value instead of throwing; unavailable and interrupted still throw.
 */
public final class FencedMethods {
  private static final Logger LOG = LoggerFactory.getLogger(FencedMethods.class);

  private static final ConcurrentMap<Method, Optional<FencedMethod>> CACHE =
      new ConcurrentHashMap<>();

  // Core's side of the weaving entry points, kept after the first call.
  private static volatile FencedCalls.Core core;

  private FencedMethods() {}

  /**
   * Finds the annotation on the method, or else on its declaring type (which then covers its public
   * methods only).
   *
   * @param method the advised method
   * @return the parsed annotation, or empty when neither carries one
   * @throws IllegalArgumentException when an attribute breaks its rule, naming the method
   */
  public static Optional<FencedMethod> lookup(Method method) {
    return CACHE.computeIfAbsent(method, FencedMethods::parse);
  }

  /**
   * The advice's entry point: runs the invocation under the fence the method's annotation names.
   *
   * @param fence the fence to use
   * @param method the advised method
   * @param args its arguments
   * @param invocation proceeds to it
   * @return the method's result
   * @throws Throwable what {@link FencedCalls#proceed} throws
   */
  public static Object proceed(
      WriterFence fence, Method method, Object[] args, FencedInvocation invocation)
      throws Throwable {
    return proceed(fence, method, args, invocation, null);
  }

  /**
   * The advice's entry point, for advice that can proceed with other arguments: a Kotlin {@code
   * suspend} function is invoked with a continuation of the fence's in place of the caller's
   * ({@link LazyResults.LazyResult#callSuspending}).
   *
   * @param fence the fence to use
   * @param method the advised method
   * @param args its arguments
   * @param invocation proceeds to it
   * @param withArguments proceeds to it with the arguments it is given; {@code null} when the
   *     advice cannot, and then a suspend function fails with {@link IllegalStateException}
   * @return the method's result
   * @throws Throwable what {@link FencedCalls#proceed} throws
   */
  public static Object proceed(
      WriterFence fence,
      Method method,
      Object[] args,
      FencedInvocation invocation,
      LazyResults.SuspendInvocation withArguments)
      throws Throwable {
    Optional<FencedMethod> fenced = lookup(method);
    if (fenced.isEmpty()) {
      return invocation.proceed();
    }
    FencedMethod m = fenced.get();
    if (m.lazy != null && m.lazy.isSuspend()) {
      if (withArguments == null) {
        throw new IllegalStateException(
            "writer-fence: "
                + method.toGenericString()
                + " is a Kotlin suspend function and this advice cannot pass it a continuation;"
                + " the method does not run");
      }
      if (LazyResults.resumesAFencedCall(args[args.length - 1])) {
        return invocation
            .proceed(); // the state machine resuming the held call: woven advice sees it
      }
      Class<?>[] parameters = method.getParameterTypes();
      return m.proceedSuspending(fence, args, parameters[parameters.length - 1], withArguments);
    }
    return m.proceed(fence, args, method.getReturnType(), invocation);
  }

  private static FencedCalls.Core core(WriterFence fence) {
    FencedCalls.Core c = core;
    if (c == null) {
      c = FencedCalls.core(fence);
      core = c;
    }
    return c;
  }

  /**
   * Parses an annotation that was read without reflection on the method (the agent reads it from
   * the class file).
   *
   * @param annotation the annotation; never {@code null}
   * @param where the annotated method, for the message
   * @param returnTypeName the binary name of the method's declared return type, as {@link
   *     Class#getName()} gives it ({@code void}, {@code int}, {@code java.util.Optional}); never
   *     {@code null}
   * @return the parsed annotation
   * @throws IllegalArgumentException when an attribute breaks its rule, naming {@code where}
   */
  public static FencedMethod of(WriterFenced annotation, String where, String returnTypeName) {
    return of(annotation, where, returnTypeName, returnTypeName::equals, null);
  }

  /**
   * Parses an annotation read without reflection on the method, with what decides how its result is
   * held ({@link LazyResults#of}).
   *
   * @param annotation the annotation; never {@code null}
   * @param where the annotated method, for the message
   * @param returnTypeName the binary name of the method's declared return type; never {@code null}
   * @param subtypeOf whether the declared return type is the named type or a subtype of it; never
   *     {@code null}
   * @param lastParameterTypeName the binary name of the last parameter's type, or {@code null} when
   *     the method has none
   * @return the parsed annotation
   * @throws IllegalArgumentException when an attribute breaks its rule, or the result type cannot
   *     be held ({@link LazyResults#of}), naming {@code where}
   */
  public static FencedMethod of(
      WriterFenced annotation,
      String where,
      String returnTypeName,
      Predicate<String> subtypeOf,
      String lastParameterTypeName) {
    return of(annotation, where, where, returnTypeName, subtypeOf, lastParameterTypeName);
  }

  /** {@link #of(WriterFenced, String, String, Predicate, String)}, with its leases' taker. */
  private static FencedMethod of(
      WriterFenced annotation,
      String where,
      String takenBy,
      String returnTypeName,
      Predicate<String> subtypeOf,
      String lastParameterTypeName) {
    try {
      return new FencedMethod(
          annotation, where, takenBy, returnTypeName, subtypeOf, lastParameterTypeName);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          e.getMessage() + " (in @WriterFenced on " + where + ")", e);
    }
  }

  private static Optional<FencedMethod> parse(Method method) {
    WriterFenced annotation = method.getAnnotation(WriterFenced.class);
    if (annotation == null && Modifier.isPublic(method.getModifiers())) {
      annotation = method.getDeclaringClass().getAnnotation(WriterFenced.class);
    }
    if (annotation == null) {
      return Optional.empty();
    }
    Class<?>[] parameters = method.getParameterTypes();
    return Optional.of(
        of(
            annotation,
            method.toGenericString(),
            describe(method),
            method.getReturnType().getName(),
            LazyResults.subtypeOf(method.getReturnType()),
            parameters.length == 0 ? null : parameters[parameters.length - 1].getName()));
  }

  /**
   * Names a fenced method as the audit names methods, and as the leases it takes name their taker:
   * {@code com.acme.Uploader.upload(String)}, the declaring class's binary name and the simple
   * names of the parameter types.
   *
   * @param method the method; never {@code null}
   * @return its name; never {@code null}
   */
  public static String describe(Method method) {
    StringBuilder s = new StringBuilder(method.getDeclaringClass().getName()).append('.');
    s.append(method.getName()).append('(');
    Class<?>[] params = method.getParameterTypes();
    for (int i = 0; i < params.length; i++) {
      s.append(i > 0 ? ", " : "").append(params[i].getSimpleName());
    }
    return s.append(')').toString();
  }

  /** One annotated method: its name template and the request values that do not vary. */
  public static final class FencedMethod {
    private final WriterFenced annotation;
    private final FenceNameTemplate name;
    private final FenceNameTemplate advisoryKey; // null: the store's key scheme
    private final String holderLabel;
    private final Duration ttl;
    private final boolean retryOverridden;
    private final Integer priority;
    private final SkipOnBusy skip; // null: busy throws
    private final boolean interruptOnLoss;
    private final LazyResults.LazyResult lazy; // null: held until the method returns
    private final FenceRequest constantRequest;
    private final String takenBy; // the leases' taker, for the audit's writer map

    private FencedMethod(
        WriterFenced a,
        String where,
        String takenBy,
        String returnTypeName,
        Predicate<String> subtypeOf,
        String lastParameterTypeName) {
      this.annotation = a;
      this.takenBy = takenBy;
      this.name = FenceNameTemplate.parse(a.value());
      this.advisoryKey = a.advisoryKey().isEmpty() ? null : name.advisoryKey(a.advisoryKey());
      // Decorated here, once per method: a call passes the label as it is.
      this.holderLabel = a.holder().isEmpty() ? null : HolderLabel.of(a.holder());
      if (a.ttlSeconds() < 0) {
        throw new IllegalArgumentException(
            "writer-fence: ttlSeconds "
                + a.ttlSeconds()
                + " is not allowed: 1 to 86400, or 0 for the default");
      }
      this.ttl = a.ttlSeconds() == 0 ? null : Duration.ofSeconds(a.ttlSeconds());
      if (ttl != null) {
        FenceArguments.ttlSeconds(ttl);
      }
      if (a.retryMaxWaitMillis() < 0) {
        throw new IllegalArgumentException(
            "writer-fence: retryMaxWaitMillis "
                + a.retryMaxWaitMillis()
                + " is not allowed: at least 1, or 0 for the default");
      }
      this.retryOverridden =
          a.retryMaxAttempts() != 0
              || a.retryInitialIntervalMillis() != 0
              || a.retryMultiplier() != 0
              || a.retryMaxIntervalMillis() != 0
              || a.retryMaxWaitMillis() != 0;
      this.priority =
          a.priority() == WriterFenced.DEFAULT_PRIORITY
              ? null
              : FenceArguments.priority(a.priority());
      this.skip = a.onBusy() == OnBusy.SKIP ? SkipOnBusy.of(where, returnTypeName) : null;
      this.interruptOnLoss = a.interruptOnLoss();
      this.lazy =
          LazyResults.of(
              where, returnTypeName, subtypeOf, lastParameterTypeName, skip, interruptOnLoss);
      retryPolicy(BusyRetryPolicy.defaults()); // names any retry value that breaks its rule now
      this.constantRequest =
          name.isConstant() && !retryOverridden && (advisoryKey == null || advisoryKey.isConstant())
              ? build(
                  name.resolve(null), null, advisoryKey == null ? null : advisoryKey.resolve(null))
              : null;
    }

    /**
     * @return the advisory key template, or empty when calls lock the store's key scheme's key
     */
    public Optional<FenceNameTemplate> advisoryKey() {
      return Optional.ofNullable(advisoryKey);
    }

    /**
     * @return the annotation
     */
    public WriterFenced annotation() {
      return annotation;
    }

    /**
     * @return what a call does when the fence stays busy: {@link SkipOnBusy} for {@code onBusy =
     *     SKIP}, empty for {@code THROW}
     */
    public Optional<SkipOnBusy> skipOnBusy() {
      return Optional.ofNullable(skip);
    }

    /**
     * @return how a call's lazy result is held per subscription, or empty when the method's result
     *     is held until it returns (or a returned {@code CompletionStage} completes)
     */
    public Optional<LazyResults.LazyResult> lazyResult() {
      return Optional.ofNullable(lazy);
    }

    /**
     * Runs one call of the method under {@code fence}: like {@link FencedCalls#proceed} with {@link
     * #request}'s request, but with the values ready (only the fence name is resolved and checked
     * per call) and no request built. With {@code onBusy = SKIP}, busy returns {@link
     * SkipOnBusy#skip}'s value and the method does not run. A lazy result ({@link #lazyResult()})
     * is deferred: the method runs, and the fence is entered, at each subscription of what this
     * returns.
     *
     * @param fence the fence; never {@code null}
     * @param args the call's arguments
     * @param declaredReturnType the method's declared return type; never {@code null}
     * @param invocation proceeds to the method; never {@code null}
     * @return the method's result, as {@link FencedCalls#proceed} returns it
     * @throws IllegalArgumentException when the fence name cannot be resolved from the arguments;
     *     the method did not run
     * @throws Throwable what {@link FencedCalls#proceed} throws (busy only with {@code onBusy =
     *     THROW})
     */
    public Object proceed(
        WriterFence fence, Object[] args, Class<?> declaredReturnType, FencedInvocation invocation)
        throws Throwable {
      String fenceName = constantRequest != null ? constantRequest.fenceName() : name.resolve(args);
      String keyText = keyText(args);
      BusyRetryPolicy policy = retryOverridden ? retryPolicy(fence.defaultRetryPolicy()) : null;
      if (lazy != null) {
        FencedCalls.Core c = core(fence);
        return lazy.defer(
            declaredReturnType,
            () -> enter(c, fence, fenceName, keyText, policy, false),
            invocation);
      }
      FencedCall call;
      try {
        call = enter(core(fence), fence, fenceName, keyText, policy, interruptOnLoss);
      } catch (WriterFenceBusyException busy) {
        if (skip == null) {
          throw busy;
        }
        return skip.skip(busy);
      }
      return call.proceed(invocation, declaredReturnType);
    }

    /**
     * Runs one call of a Kotlin {@code suspend} function under {@code fence}: acquires now and
     * holds until the function resumes its caller ({@link LazyResults.LazyResult#callSuspending}).
     *
     * @param fence the fence; never {@code null}
     * @param args the call's arguments, the caller's continuation last
     * @param continuationType the method's last parameter type; never {@code null}
     * @param invocation proceeds to the method with the arguments it is given; never {@code null}
     * @return what the method returned, {@code COROUTINE_SUSPENDED} or its value; {@code null} for
     *     a call skipped when busy
     * @throws IllegalStateException when the method is not a suspend function
     * @throws Throwable busy, unavailable or interrupted before the method runs; what it threw
     */
    public Object proceedSuspending(
        WriterFence fence,
        Object[] args,
        Class<?> continuationType,
        LazyResults.SuspendInvocation invocation)
        throws Throwable {
      if (lazy == null || !lazy.isSuspend()) {
        throw new IllegalStateException("writer-fence: not a Kotlin suspend function");
      }
      String fenceName = constantRequest != null ? constantRequest.fenceName() : name.resolve(args);
      String keyText = keyText(args);
      BusyRetryPolicy policy = retryOverridden ? retryPolicy(fence.defaultRetryPolicy()) : null;
      FencedCalls.Core c = core(fence);
      return lazy.callSuspending(
          continuationType,
          args,
          () -> enter(c, fence, fenceName, keyText, policy, false),
          invocation);
    }

    /** The call's advisory key text, or {@code null} when calls lock the key scheme's key. */
    private String keyText(Object[] args) {
      if (advisoryKey == null) {
        return null;
      }
      return constantRequest != null
          ? constantRequest.advisoryKey().orElseThrow()
          : advisoryKey.resolve(args);
    }

    /**
     * Enters with the values ready; a call with an advisory key text goes through a request, the
     * one way a key text reaches the store.
     */
    private FencedCall enter(
        FencedCalls.Core c,
        WriterFence fence,
        String fenceName,
        String keyText,
        BusyRetryPolicy policy,
        boolean interrupt) {
      if (keyText == null) {
        return c.enter(fence, fenceName, holderLabel, ttl, policy, priority, interrupt, takenBy);
      }
      return c.enter(fence, build(fenceName, policy, keyText), takenBy);
    }

    /**
     * @param args the call's arguments
     * @param defaultRetryPolicy the fence's default, which the annotation's retry attributes adjust
     * @return the request for this call
     * @throws IllegalArgumentException when the fence name cannot be resolved from the arguments
     */
    public FenceRequest request(Object[] args, BusyRetryPolicy defaultRetryPolicy) {
      if (constantRequest != null) {
        return constantRequest;
      }
      return build(
          name.resolve(args),
          retryOverridden ? retryPolicy(defaultRetryPolicy) : null,
          keyText(args));
    }

    private FenceRequest build(String fenceName, BusyRetryPolicy retryPolicy, String keyText) {
      return FenceRequest.builder(fenceName)
          .advisoryKey(keyText)
          .holderLabel(holderLabel)
          .ttl(ttl)
          .retryPolicy(retryPolicy)
          .priority(priority)
          // A lazy result is cancelled on loss per subscription (LazyResults): no thread of its
          // enter is the one to interrupt.
          .interruptOnLoss(interruptOnLoss && lazy == null)
          .build();
    }

    /** The annotation's retry attributes on top of {@code p}. */
    private BusyRetryPolicy retryPolicy(BusyRetryPolicy p) {
      WriterFenced a = annotation;
      if (a.retryMaxAttempts() != 0) {
        p = p.withMaxAttempts(a.retryMaxAttempts());
      }
      if (a.retryInitialIntervalMillis() != 0) {
        p = p.withInitialInterval(Duration.ofMillis(a.retryInitialIntervalMillis()));
      }
      if (a.retryMultiplier() != 0) {
        p = p.withMultiplier(a.retryMultiplier());
      }
      if (a.retryMaxIntervalMillis() != 0) {
        p = p.withMaxInterval(Duration.ofMillis(a.retryMaxIntervalMillis()));
      }
      if (a.retryMaxWaitMillis() != 0) {
        p = p.withMaxWait(Duration.ofMillis(a.retryMaxWaitMillis()));
      }
      return p;
    }
  }

  /**
   * What a fenced method returns when its call is skipped because the fence stayed busy ({@code
   * onBusy = SKIP}): {@code null} for a reference type (nothing for {@code void}), an empty {@code
   * Optional} (also {@code OptionalInt}, {@code OptionalLong}, {@code OptionalDouble}), a completed
   * future of {@code null} for {@code CompletionStage} and {@code CompletableFuture}; a lazy result
   * ({@link LazyResults}) completes empty instead. Decided once per method from its declared return
   * type; a primitive other than {@code void} has no value to return and is refused. Each skip is
   * logged at DEBUG (a scheduled job on several instances skips on all but one of them every run);
   * a fence listener still hears of the busy answer.
   */
  public static final class SkipOnBusy {
    private enum Value {
      NULL,
      OPTIONAL,
      OPTIONAL_INT,
      OPTIONAL_LONG,
      OPTIONAL_DOUBLE,
      FUTURE
    }

    private final String where;
    private final Value value;

    private SkipOnBusy(String where, Value value) {
      this.where = where;
      this.value = value;
    }

    /**
     * @param where the fenced method, for messages and the log; never {@code null}
     * @param returnTypeName the binary name of its declared return type, as {@link Class#getName()}
     *     gives it ({@code void}, {@code java.util.Optional}); never {@code null}
     * @return what a skipped call of that method returns
     * @throws IllegalArgumentException naming the method and the type when it returns a primitive
     *     other than {@code void}
     */
    public static SkipOnBusy of(String where, String returnTypeName) {
      Value v =
          switch (returnTypeName) {
            case "java.util.Optional" -> Value.OPTIONAL;
            case "java.util.OptionalInt" -> Value.OPTIONAL_INT;
            case "java.util.OptionalLong" -> Value.OPTIONAL_LONG;
            case "java.util.OptionalDouble" -> Value.OPTIONAL_DOUBLE;
            case "java.util.concurrent.CompletionStage", "java.util.concurrent.CompletableFuture" ->
                Value.FUTURE;
            case "boolean", "byte", "char", "short", "int", "long", "float", "double" ->
                throw new IllegalArgumentException(
                    "writer-fence: onBusy = SKIP is not allowed on "
                        + where
                        + ", which returns "
                        + returnTypeName
                        + ": a skipped call has no "
                        + returnTypeName
                        + " to return; return void, a reference type, an Optional or a"
                        + " CompletionStage, or keep onBusy = THROW");
            default -> Value.NULL; // void and every other reference type
          };
      return new SkipOnBusy(where, v);
    }

    /**
     * A call that stays busy is skipped: logs it at DEBUG and gives the value the caller sees.
     *
     * @param busy the busy answer of the call's enter; never {@code null}
     * @return {@code null}, an empty optional, or a new completed future of {@code null}
     */
    public Object skip(WriterFenceBusyException busy) {
      skipped(busy.getMessage());
      return switch (value) {
        case NULL -> null;
        case OPTIONAL -> Optional.empty();
        case OPTIONAL_INT -> OptionalInt.empty();
        case OPTIONAL_LONG -> OptionalLong.empty();
        case OPTIONAL_DOUBLE -> OptionalDouble.empty();
        case FUTURE -> CompletableFuture.completedFuture(null);
      };
    }

    /** Logs a skipped call at DEBUG, with the busy answer's message. */
    void skipped(String busyMessage) {
      if (LOG.isDebugEnabled()) {
        LOG.debug(
            "writer-fence: {} skipped (onBusy = SKIP), the method did not run: {}",
            where,
            busyMessage);
      }
    }

    @Override
    public String toString() {
      return "skip " + where + " when busy, returning " + value;
    }
  }

  /**
   * A fence name with argument placeholders: {@code "corpus:{0}"} is {@code "corpus:"} followed by
   * the first argument's {@code toString()}. {@code {{} } and {@code }}} are literal braces. Parsed
   * once per method; {@link #resolve} is cheap. An advisory key template ({@link
   * #parseAdvisoryKey}) has the same syntax, and its result is checked as an advisory key text.
   */
  public static final class FenceNameTemplate {
    private final String template;
    private final List<Object> parts; // String literals and Integer argument indexes
    private final int highestIndex;
    private final String what; // "fence name" or "advisory key"
    private final UnaryOperator<String> check;

    private FenceNameTemplate(
        String template,
        List<Object> parts,
        int highestIndex,
        String what,
        UnaryOperator<String> check) {
      this.template = template;
      this.parts = parts;
      this.highestIndex = highestIndex;
      this.what = what;
      this.check = check;
    }

    /**
     * @param template the fence name or its template
     * @return the parsed template
     * @throws IllegalArgumentException naming the template when a brace is unbalanced or a
     *     placeholder is not a non-negative integer, or a constant name breaks the fence name rule
     */
    public static FenceNameTemplate parse(String template) {
      return parse(template, "fence name", FenceArguments::fenceName);
    }

    /**
     * @param template the advisory key text or its template, for example {@code
     *     "vibey.integrate:{0}:{1}"} (ADR 58)
     * @return the parsed template, whose {@link #resolve} gives an advisory key text
     * @throws IllegalArgumentException naming the template when a brace is unbalanced or a
     *     placeholder is not a non-negative integer, or a constant text breaks the rule of {@link
     *     FenceArguments#advisoryKeyText}
     */
    public static FenceNameTemplate parseAdvisoryKey(String template) {
      return parse(template, "advisory key", FenceArguments::advisoryKeyText);
    }

    private static FenceNameTemplate parse(
        String template, String what, UnaryOperator<String> check) {
      if (template == null) {
        throw new IllegalArgumentException("writer-fence: " + what + " template is null");
      }
      List<Object> parts = new ArrayList<>();
      StringBuilder literal = new StringBuilder();
      int highest = -1;
      for (int i = 0; i < template.length(); i++) {
        char c = template.charAt(i);
        if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
          literal.append('{');
          i++;
        } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
          literal.append('}');
          i++;
        } else if (c == '{') {
          int close = template.indexOf('}', i);
          String index = close < 0 ? "" : template.substring(i + 1, close);
          if (!index.matches("\\d{1,3}")) {
            throw new IllegalArgumentException(
                "writer-fence: "
                    + what
                    + " template '"
                    + template
                    + "' is not allowed: a placeholder is {N} with N an argument index from 0,"
                    + " literal braces are {{ and }}");
          }
          if (literal.length() > 0) {
            parts.add(literal.toString());
            literal.setLength(0);
          }
          int n = Integer.parseInt(index);
          parts.add(n);
          highest = Math.max(highest, n);
          i = close;
        } else if (c == '}') {
          throw new IllegalArgumentException(
              "writer-fence: "
                  + what
                  + " template '"
                  + template
                  + "' is not allowed: unbalanced '}' (write }} for a literal brace)");
        } else {
          literal.append(c);
        }
      }
      if (literal.length() > 0) {
        parts.add(literal.toString());
      }
      if (highest < 0) {
        check.apply(parts.isEmpty() ? "" : (String) parts.get(0));
      }
      return new FenceNameTemplate(template, List.copyOf(parts), highest, what, check);
    }

    /**
     * @return {@code true} when the name does not depend on the arguments
     */
    public boolean isConstant() {
      return highestIndex < 0;
    }

    /**
     * Parses an advisory key template for calls of this fence name template ({@link
     * #parseAdvisoryKey}), checked against it: every argument the key uses must be one this name
     * uses too, so that one fence name always takes one key (ADR 58).
     *
     * @param template the advisory key text or its template, for example {@code
     *     "vibey.integrate:{0}:{1}"}
     * @return the parsed key template
     * @throws IllegalArgumentException naming the template and what is allowed when it is malformed
     *     or uses an argument this name does not
     */
    public FenceNameTemplate advisoryKey(String template) {
      FenceNameTemplate key = parseAdvisoryKey(template);
      SortedSet<Integer> extra = new TreeSet<>(key.argumentIndexes());
      extra.removeAll(argumentIndexes());
      if (!extra.isEmpty()) {
        throw new IllegalArgumentException(
            "writer-fence: advisory key template '"
                + template
                + "' is not allowed: it uses argument {"
                + extra.first()
                + "}, which the fence name '"
                + this.template
                + "' does not use; an advisory key may use only the fence name's arguments"
                + " (so one fence name always takes one key)");
      }
      return key;
    }

    /**
     * @return the argument indexes its placeholders use, in ascending order; empty for a constant
     */
    public SortedSet<Integer> argumentIndexes() {
      SortedSet<Integer> indexes = new TreeSet<>();
      for (Object part : parts) {
        if (part instanceof Integer index) {
          indexes.add(index);
        }
      }
      return Collections.unmodifiableSortedSet(indexes);
    }

    /**
     * @param args the method's arguments; may be {@code null} for a method without any
     * @return the fence name (or advisory key text) for this call
     * @throws IllegalArgumentException when a placeholder's argument is missing or {@code null}, or
     *     the result breaks its rule
     */
    public String resolve(Object[] args) {
      int count = args == null ? 0 : args.length;
      if (highestIndex >= count) {
        throw new IllegalArgumentException(
            "writer-fence: "
                + what
                + " template '"
                + template
                + "' uses argument {"
                + highestIndex
                + "} but the method has "
                + count
                + " argument(s)");
      }
      StringBuilder name = new StringBuilder();
      for (Object part : parts) {
        if (part instanceof Integer index) {
          Object arg = args[index];
          if (arg == null) {
            throw new IllegalArgumentException(
                "writer-fence: "
                    + what
                    + " template '"
                    + template
                    + "': argument {"
                    + index
                    + "} is null; a "
                    + what
                    + " needs a value");
          }
          name.append(arg);
        } else {
          name.append((String) part);
        }
      }
      return check.apply(name.toString());
    }

    @Override
    public String toString() {
      return template;
    }
  }
}
