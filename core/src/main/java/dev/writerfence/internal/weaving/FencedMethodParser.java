package dev.writerfence.internal.weaving;

import dev.writerfence.HolderLabel;
import dev.writerfence.annotation.OnBusy;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.internal.weaving.FencedMethods.FencedMethod;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * Reads {@link WriterFenced} into a {@link FencedMethod}: from a method by reflection ({@link
 * FencedMethods#lookup} caches what it finds), or from an annotation the agent read from the class
 * file ({@link #of}). The attributes are checked once per method, as the {@link FencedMethod} is
 * built, and a broken one is named with the method it is on.
 */
public final class FencedMethodParser {
  private FencedMethodParser() {}

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
      return read(annotation, where, takenBy, returnTypeName, subtypeOf, lastParameterTypeName);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          e.getMessage() + " (in @WriterFenced on " + where + ")", e);
    }
  }

  /**
   * Reads and checks each attribute of {@code a}; the first that breaks its rule is the one named,
   * in this order: the name and key templates, the holder label, the TTL, the retry wait, the
   * priority, {@code onBusy} against the return type, the result type ({@link LazyResults#of}),
   * then the retry values.
   */
  private static FencedMethod read(
      WriterFenced a,
      String where,
      String takenBy,
      String returnTypeName,
      Predicate<String> subtypeOf,
      String lastParameterTypeName) {
    FenceNameTemplate name = FenceNameTemplate.parse(a.value());
    FenceNameTemplate advisoryKey =
        a.advisoryKey().isEmpty() ? null : name.advisoryKey(a.advisoryKey());
    // Decorated here, once per method: a call passes the label as it is.
    String holderLabel = a.holder().isEmpty() ? null : HolderLabel.of(a.holder());
    if (a.ttlSeconds() < 0) {
      throw new IllegalArgumentException(
          "writer-fence: ttlSeconds "
              + a.ttlSeconds()
              + " is not allowed: 1 to 86400, or 0 for the default");
    }
    Duration ttl = a.ttlSeconds() == 0 ? null : Duration.ofSeconds(a.ttlSeconds());
    if (ttl != null) {
      FenceArguments.ttlSeconds(ttl);
    }
    if (a.retryMaxWaitMillis() < 0) {
      throw new IllegalArgumentException(
          "writer-fence: retryMaxWaitMillis "
              + a.retryMaxWaitMillis()
              + " is not allowed: at least 1, or 0 for the default");
    }
    boolean retryOverridden =
        a.retryMaxAttempts() != 0
            || a.retryInitialIntervalMillis() != 0
            || a.retryMultiplier() != 0
            || a.retryMaxIntervalMillis() != 0
            || a.retryMaxWaitMillis() != 0;
    Integer priority =
        a.priority() == WriterFenced.DEFAULT_PRIORITY
            ? null
            : FenceArguments.priority(a.priority());
    SkipOnBusy skip = a.onBusy() == OnBusy.SKIP ? SkipOnBusy.of(where, returnTypeName) : null;
    LazyResults.LazyResult lazy =
        LazyResults.of(
            where, returnTypeName, subtypeOf, lastParameterTypeName, skip, a.interruptOnLoss());
    // The constructor checks the retry values last (BusyRetryPolicy names the one that breaks).
    return new FencedMethod(
        a, takenBy, name, advisoryKey, holderLabel, ttl, retryOverridden, priority, skip, lazy);
  }

  /**
   * @param method the advised method
   * @return the parsed annotation of the method, or else of its declaring type (which then covers
   *     its public methods only); empty when neither carries one
   * @throws IllegalArgumentException when an attribute breaks its rule, naming the method
   */
  static Optional<FencedMethod> parse(Method method) {
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

  /**
   * Parses a {@link FenceNameTemplate}: {@code what} names it in messages, {@code check} checks a
   * constant result (a template without placeholders) now, and each resolved one per call.
   */
  static FenceNameTemplate parseTemplate(
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
}
