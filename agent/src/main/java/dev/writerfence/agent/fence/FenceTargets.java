package dev.writerfence.agent.fence;

import dev.writerfence.agent.AgentLog;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethodParser;
import dev.writerfence.internal.weaving.LazyResults;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import net.bytebuddy.description.annotation.AnnotationDescription;
import net.bytebuddy.description.annotation.AnnotationList;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.description.type.TypeList;

/**
 * Decides, when a class is transformed, which of its methods are fenced and how: the {@code
 * fence.methods} entries naming the class first, then {@code @WriterFenced} on a method or on the
 * class (its public methods). A method the AspectJ aspect already wove (ajc leaves a {@code
 * <method>_aroundBody<N>} sibling) is left alone, so no call is fenced twice.
 */
final class FenceTargets {
  /** Matched by name, never by class literal: the application's copy of the annotation counts. */
  static final String ANNOTATION = "dev.writerfence.annotation.WriterFenced";

  private final Map<String, List<MethodPattern>> patternsByClass = new LinkedHashMap<>();
  private final Set<String> classesSeen = ConcurrentHashMap.newKeySet();

  FenceTargets(List<MethodPattern> patterns) {
    for (MethodPattern p : patterns) {
      patternsByClass.computeIfAbsent(p.className(), k -> new ArrayList<>()).add(p);
    }
  }

  /**
   * @return the exact class names that {@code fence.methods} names
   */
  Set<String> configuredClasses() {
    return patternsByClass.keySet();
  }

  /**
   * @param type the class being transformed
   * @return its methods to fence, each with its spec, in declaration order
   */
  Map<MethodDescription, FenceSpec> fencedMethods(TypeDescription type) {
    Map<MethodDescription, FenceSpec> fenced = new LinkedHashMap<>();
    List<MethodPattern> patterns = patternsByClass.getOrDefault(type.getName(), List.of());
    if (!patterns.isEmpty()) {
      classesSeen.add(type.getName());
    }
    for (MethodPattern pattern : patterns) {
      boolean matched = false;
      for (MethodDescription m : type.getDeclaredMethods()) {
        if (fenceable(m) && pattern.matchesMethod(m.getName())) {
          matched = true;
          if (!wovenByAspectJ(type, m)) {
            fenced.putIfAbsent(m, configured(type, m, pattern));
          }
        }
      }
      if (!matched) {
        AgentLog.once(
            "unmatched:" + pattern.text(),
            "fence.methods entry '"
                + pattern.text()
                + "' matches no method declared in "
                + type.getName()
                + ": nothing is fenced for it");
      }
    }
    if (type.isInterface()) {
      noteInterfaceAnnotations(type);
    }
    // @WriterFenced is @Inherited: a subclass of an annotated type is covered too, as Java
    // reflection and the Spring starter see it.
    AnnotationDescription onType = writerFenced(type.getInheritedAnnotations());
    for (MethodDescription m : type.getDeclaredMethods()) {
      if (fenced.containsKey(m) || !fenceable(m) || wovenByAspectJ(type, m)) {
        continue;
      }
      AnnotationDescription a = writerFenced(m.getDeclaredAnnotations());
      if (a == null && m.isPublic()) {
        a = onType;
      }
      if (a != null) {
        fenced.put(m, annotated(type, m, a));
      }
    }
    return fenced;
  }

  /**
   * A fenced method whose result no lease can be held for (a {@code Future} that is not a {@code
   * CompletionStage}, a bare publisher, a Kotlin {@code Flow}) would release its lease before its
   * work: its class is refused, naming the method and the type.
   *
   * @throws UnheldResultException when the method's result cannot be held
   */
  private static void refuseUnheldResult(TypeDescription type, MethodDescription m) {
    try {
      LazyResults.of(
          where(type, m),
          returnTypeName(m),
          subtypeOf(m.getReturnType().asErasure()),
          lastParameterTypeName(m),
          null);
    } catch (IllegalArgumentException e) {
      throw new UnheldResultException(e.getMessage());
    }
  }

  /** Thrown while a class is transformed: the class is refused (ADR 17), its line names why. */
  static final class UnheldResultException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    UnheldResultException(String message) {
      super(message);
    }
  }

  /**
   * @return the {@code fence.methods} entries whose class was never transformed
   */
  List<String> entriesOfClassesNeverLoaded() {
    List<String> never = new ArrayList<>();
    patternsByClass.forEach(
        (className, patterns) -> {
          if (!classesSeen.contains(className)) {
            patterns.forEach(p -> never.add(p.text()));
          }
        });
    return never;
  }

  /** The key the advice passes for {@code m}: see {@link FenceAdvice#KEY}. */
  static String key(TypeDescription type, MethodDescription m) {
    return type.getName() + "." + m.getInternalName() + m.getDescriptor();
  }

  /** A {@code fence.methods} entry's spec; one it cannot meet for this method fails closed. */
  private static FenceSpec configured(
      TypeDescription type, MethodDescription m, MethodPattern pattern) {
    refuseUnheldResult(type, m);
    String where = where(type, m);
    try {
      return FenceSpec.configured(
          where,
          takenBy(type, m),
          pattern,
          returnTypeName(m),
          returnsFuture(m),
          subtypeOf(m.getReturnType().asErasure()),
          lastParameterTypeName(m));
    } catch (IllegalArgumentException e) {
      IllegalArgumentException why =
          new IllegalArgumentException(
              e.getMessage() + " (fence.methods entry '" + pattern.text() + "')", e);
      AgentLog.once("broken:" + where, why.getMessage() + "; calls of it fail and it never runs");
      return FenceSpec.broken(where, why);
    }
  }

  private static FenceSpec annotated(
      TypeDescription type, MethodDescription m, AnnotationDescription a) {
    refuseUnheldResult(type, m);
    String where = where(type, m);
    try {
      WriterFenced annotation = a.prepare(WriterFenced.class).load();
      return FenceSpec.annotated(
          where,
          takenBy(type, m),
          FencedMethodParser.of(
              annotation,
              where,
              returnTypeName(m),
              subtypeOf(m.getReturnType().asErasure()),
              lastParameterTypeName(m)),
          returnsFuture(m));
    } catch (RuntimeException e) {
      // A value this agent cannot read (a newer annotation, say) must not leave it unfenced:
      // every call fails closed, naming why.
      IllegalArgumentException why =
          e instanceof IllegalArgumentException iae
              ? iae
              : new IllegalArgumentException(
                  "writer-fence agent: cannot read @WriterFenced on " + where + ": " + e, e);
      AgentLog.once("broken:" + where, why.getMessage() + "; calls of it fail and it never runs");
      return FenceSpec.broken(where, why);
    }
  }

  /**
   * An annotation on an interface (its abstract methods or its type) is not honoured in any weaving
   * mode: say so once per method, since the classes implementing it run unfenced.
   */
  private static void noteInterfaceAnnotations(TypeDescription type) {
    boolean typeFenced = writerFenced(type.getDeclaredAnnotations()) != null;
    for (MethodDescription m : type.getDeclaredMethods()) {
      if (m.isAbstract() && (typeFenced || writerFenced(m.getDeclaredAnnotations()) != null)) {
        String where = where(type, m);
        AgentLog.once(
            "interface:" + where,
            "@WriterFenced on interface method "
                + where
                + " is not honoured (no weaving mode reads it from an interface): its"
                + " implementations run unfenced unless they carry the annotation themselves");
      }
    }
  }

  private static AnnotationDescription writerFenced(AnnotationList annotations) {
    for (AnnotationDescription a : annotations) {
      if (a.getAnnotationType().getName().equals(ANNOTATION)) {
        return a;
      }
    }
    return null;
  }

  private static boolean fenceable(MethodDescription m) {
    return m.isMethod() && !m.isAbstract() && !m.isNative() && !m.isSynthetic() && !m.isBridge();
  }

  /** ajc moves a woven method's body to {@code <name>_aroundBody<N>}; the aspect fences it. */
  private static boolean wovenByAspectJ(TypeDescription type, MethodDescription m) {
    String prefix = m.getName() + "_aroundBody";
    for (MethodDescription other : type.getDeclaredMethods()) {
      String name = other.getName();
      if (name.startsWith(prefix)
          && name.length() > prefix.length()
          && Character.isDigit(name.charAt(prefix.length()))) {
        return true;
      }
    }
    return false;
  }

  /** The return type's binary name ({@code void}, {@code int}, …), read without loading it. */
  private static String returnTypeName(MethodDescription m) {
    return m.getReturnType().asErasure().getName();
  }

  /** Whether the return type can hold a {@link CompletableFuture}, read without loading it. */
  private static boolean returnsFuture(MethodDescription m) {
    TypeDescription r = m.getReturnType().asErasure();
    return !r.isPrimitive() && r.isAssignableFrom(CompletableFuture.class);
  }

  /** The last parameter's binary name, or {@code null} without parameters. */
  private static String lastParameterTypeName(MethodDescription m) {
    int n = m.getParameters().size();
    return n == 0 ? null : m.getParameters().get(n - 1).getType().asErasure().getName();
  }

  /**
   * A subtype test over the class files Byte Buddy reads, loading nothing; a type it cannot find is
   * no subtype.
   */
  static Predicate<String> subtypeOf(TypeDescription type) {
    return name -> {
      try {
        return isOrExtends(type, name, new HashSet<>());
      } catch (RuntimeException unresolved) {
        return false;
      }
    };
  }

  private static boolean isOrExtends(TypeDescription t, String name, Set<String> seen) {
    if (!seen.add(t.getName())) {
      return false;
    }
    if (t.getName().equals(name)) {
      return true;
    }
    for (TypeDescription.Generic i : t.getInterfaces()) {
      if (isOrExtends(i.asErasure(), name, seen)) {
        return true;
      }
    }
    TypeDescription.Generic superClass = t.getSuperClass();
    return superClass != null && isOrExtends(superClass.asErasure(), name, seen);
  }

  private static String where(TypeDescription type, MethodDescription m) {
    return type.getName() + "#" + m.getName() + m.getDescriptor();
  }

  /**
   * @return the method as the leases it takes name their taker, and as {@code
   *     FencedMethodParser.describe} names a method of a loaded class: {@code
   *     com.acme.Uploader.upload(String)}
   */
  private static String takenBy(TypeDescription type, MethodDescription m) {
    StringBuilder s = new StringBuilder(type.getName()).append('.').append(m.getName()).append('(');
    TypeList parameters = m.getParameters().asTypeList().asErasures();
    for (int i = 0; i < parameters.size(); i++) {
      s.append(i > 0 ? ", " : "").append(parameters.get(i).getSimpleName());
    }
    return s.append(')').toString();
  }
}
