package dev.writerfence.spring.aop;

import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.internal.weaving.FencedMethods;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodClassKey;
import org.springframework.util.ClassUtils;

/**
 * Finds the method whose {@link WriterFenced} governs a call: the one {@link FencedMethods} reads
 * the request from. That is the method that runs (the target class's most specific implementation),
 * when it carries the annotation itself or, being public, its declaring class does (as in the
 * AspectJ aspect and the agent). An annotation on an interface, on its method or on its type, is
 * not honoured; {@link WriterFenceAdviceCheck} names such methods at start-up.
 *
 * <p>Resolved once per method and target class.
 */
final class FencedMethodResolver {
  private final ConcurrentMap<MethodClassKey, Optional<Method>> carriers =
      new ConcurrentHashMap<>();
  private final ConcurrentMap<Class<?>, Boolean> candidates = new ConcurrentHashMap<>();

  /**
   * @param method the invoked method (perhaps an interface method)
   * @param targetClass the target's class, or {@code null} when unknown
   * @return the method carrying the annotation that governs the call, or empty when none does
   * @throws IllegalArgumentException when that annotation breaks a rule (naming the method)
   */
  Optional<Method> carrier(Method method, Class<?> targetClass) {
    return carriers.computeIfAbsent(
        new MethodClassKey(method, targetClass), k -> find(method, targetClass));
  }

  /**
   * @param type a bean class
   * @return whether it, its superclasses or interfaces carry {@code @WriterFenced} anywhere: the
   *     cheap first test before methods are looked at
   */
  boolean isCandidate(Class<?> type) {
    return candidates.computeIfAbsent(type, FencedMethodResolver::mentionsAnnotation);
  }

  private static Optional<Method> find(Method method, Class<?> targetClass) {
    Class<?> type = targetClass != null ? targetClass : method.getDeclaringClass();
    Method specific =
        BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(method, type));
    // One rule for every weaving mode: the annotation counts on the method that runs or on the
    // class that declares it, never on an interface (AspectJ and the agent cannot see it there).
    return FencedMethods.lookup(specific).isPresent() ? Optional.of(specific) : Optional.empty();
  }

  /** Superclasses (nearest first, without Object), then every interface. */
  static List<Class<?>> hierarchy(Class<?> type) {
    List<Class<?>> classes = new ArrayList<>();
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      classes.add(c);
    }
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    for (Class<?> c : classes) {
      interfaces.addAll(ClassUtils.getAllInterfacesForClassAsSet(c));
    }
    classes.addAll(interfaces);
    return classes;
  }

  private static boolean mentionsAnnotation(Class<?> type) {
    if (!org.springframework.core.annotation.AnnotationUtils.isCandidateClass(
        type, WriterFenced.class)) {
      return false;
    }
    for (Class<?> t : hierarchy(type)) {
      if (t.isAnnotationPresent(WriterFenced.class)) {
        return true;
      }
      for (Method m : t.getDeclaredMethods()) {
        if (m.isAnnotationPresent(WriterFenced.class)) {
          return true;
        }
      }
    }
    return false;
  }
}
