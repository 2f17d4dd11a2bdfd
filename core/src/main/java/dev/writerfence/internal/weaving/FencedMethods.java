package dev.writerfence.internal.weaving;

import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.retry.BusyRetryPolicy;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Turns {@link WriterFenced} on a method into a ready {@link FencedMethod}, which enters the fence
 * for each call. Shared by every weaving mode, so the same annotation means the same fenced call
 * everywhere. The annotation, its name template ({@link FenceNameTemplate}) and its retry values
 * are read and checked once per method; a call only fills in the name's placeholders, checks the
 * name and enters the fence with the values ready, without building a {@link FenceRequest}. {@link
 * FencedMethodParser} reads the annotation; a woven call's whole path, from {@link #proceed} to the
 * fence's enter and the method's exit, stays in this class (ADR 34).
 *
 * <p>With {@code onBusy = SKIP} a call that stays busy through its wait does not run the method and
 * returns {@link SkipOnBusy}'s value instead of throwing; unavailable and interrupted still throw.
 */
public final class FencedMethods {
  private static final ConcurrentMap<Method, Optional<FencedMethod>> CACHE =
      new ConcurrentHashMap<>();

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
    return CACHE.computeIfAbsent(method, FencedMethodParser::parse);
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
      WeavableFence fence, Method method, Object[] args, FencedInvocation invocation)
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
      WeavableFence fence,
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

  /** The fence's flow, read here so that a woven call does not pass through FencedCalls. */
  private static FencedCalls.Core core(WeavableFence fence) {
    return fence.core;
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
    private final FencedCalls.Call constantCall; // null unless the name is constant
    private final String takenBy; // the leases' taker, for the audit's writer map
    private final FencedCalls.Site site; // the name template and busy outcome, for observations

    /**
     * The values {@link FencedMethodParser} read and checked from {@code a}; a constant name's
     * request and call are built here, once.
     */
    FencedMethod(
        WriterFenced a,
        String takenBy,
        FenceNameTemplate name,
        FenceNameTemplate advisoryKey,
        String holderLabel,
        Duration ttl,
        boolean retryOverridden,
        Integer priority,
        SkipOnBusy skip,
        LazyResults.LazyResult lazy) {
      this.annotation = a;
      this.takenBy = takenBy;
      this.name = name;
      this.advisoryKey = advisoryKey;
      this.holderLabel = holderLabel;
      this.ttl = ttl;
      this.retryOverridden = retryOverridden;
      this.priority = priority;
      this.skip = skip;
      this.interruptOnLoss = a.interruptOnLoss();
      this.lazy = lazy;
      this.site = new FencedCalls.Site(name.toString(), skip != null);
      retryPolicy(BusyRetryPolicy.defaults()); // names any retry value that breaks its rule now
      this.constantRequest =
          name.isConstant() && !retryOverridden && (advisoryKey == null || advisoryKey.isConstant())
              ? build(
                  name.resolve(null), null, advisoryKey == null ? null : advisoryKey.resolve(null))
              : null;
      // A lazy result is cancelled on loss per subscription (LazyResults): its enter interrupts no
      // thread.
      boolean interrupt = interruptOnLoss && lazy == null;
      this.constantCall =
          constantRequest == null
              ? null
              : advisoryKey != null
                  ? FencedCalls.Call.of(constantRequest, takenBy, site)
                  : new FencedCalls.Call(
                      constantRequest.fenceName(),
                      holderLabel,
                      ttl,
                      null,
                      priority,
                      interrupt,
                      null,
                      takenBy,
                      null,
                      site);
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
        WeavableFence fence,
        Object[] args,
        Class<?> declaredReturnType,
        FencedInvocation invocation)
        throws Throwable {
      FencedCalls.Core c = core(fence);
      if (lazy != null) {
        FencedCalls.Call call = call(fence, args, false);
        return lazy.defer(declaredReturnType, () -> c.enter(call), invocation);
      }
      FencedCall entered;
      try {
        entered = c.enter(call(fence, args, interruptOnLoss));
      } catch (WriterFenceBusyException busy) {
        if (skip == null) {
          throw busy;
        }
        return skip.skip(busy);
      }
      // The around form of FencedCall.proceed, written out: the method runs next, with no step of
      // the call's class before it (ADR 34).
      Object result;
      try {
        result = invocation.proceed();
      } catch (Throwable t) {
        entered.exit(null, t, declaredReturnType);
        throw t;
      }
      return entered.exit(result, null, declaredReturnType);
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
        WeavableFence fence,
        Object[] args,
        Class<?> continuationType,
        LazyResults.SuspendInvocation invocation)
        throws Throwable {
      if (lazy == null || !lazy.isSuspend()) {
        throw new IllegalStateException("writer-fence: not a Kotlin suspend function");
      }
      FencedCalls.Core c = core(fence);
      FencedCalls.Call call = call(fence, args, false);
      return lazy.callSuspending(continuationType, args, () -> c.enter(call), invocation);
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
     * The checked call of one invocation, made with the values ready (built once for a constant
     * name); a call with an advisory key text goes through a request, the one way a key text
     * reaches the store. The fence name is resolved and checked last, so that the fence is entered
     * next, with no other step of this class between (ADR 34).
     *
     * @param interrupt whether the calling thread is interrupted on loss
     * @throws IllegalArgumentException when the fence name cannot be resolved from the arguments
     */
    private FencedCalls.Call call(WeavableFence fence, Object[] args, boolean interrupt) {
      if (constantCall != null) {
        return constantCall;
      }
      BusyRetryPolicy policy = retryOverridden ? retryPolicy(fence.defaultRetryPolicy()) : null;
      if (advisoryKey != null) {
        String fenceName = name.resolve(args);
        return FencedCalls.Call.of(build(fenceName, policy, keyText(args)), takenBy, site);
      }
      return new FencedCalls.Call(
          name.resolve(args),
          holderLabel,
          ttl,
          policy,
          priority,
          interrupt,
          null,
          takenBy,
          null,
          site);
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
    private Pattern shape; // the names it makes, for matches(); compiled on first use

    FenceNameTemplate(
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
      return FencedMethodParser.parseTemplate(template, "fence name", FenceArguments::fenceName);
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
      return FencedMethodParser.parseTemplate(
          template, "advisory key", FenceArguments::advisoryKeyText);
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
     * Whether a name could have been made by this template: its literal parts in order, each
     * placeholder standing for one or more characters (an argument's {@code toString()}).
     *
     * @param name a fence name (or advisory key text); {@code null} matches nothing
     * @return {@code true} when {@code name} has this template's shape; for a constant, when it
     *     equals it
     */
    public boolean matches(String name) {
      if (name == null) {
        return false;
      }
      Pattern p = shape;
      if (p == null) {
        StringBuilder regex = new StringBuilder();
        for (Object part : parts) {
          regex.append(part instanceof Integer ? ".+?" : Pattern.quote((String) part));
        }
        p = Pattern.compile(regex.toString(), Pattern.DOTALL);
        shape = p; // racy but idempotent: every thread compiles the same pattern
      }
      return p.matcher(name).matches();
    }

    /**
     * @return the characters of the template's literal parts: how specific it is, when several
     *     templates match one name
     */
    public int literalLength() {
      int length = 0;
      for (Object part : parts) {
        if (part instanceof String literal) {
          length += literal.length();
        }
      }
      return length;
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
