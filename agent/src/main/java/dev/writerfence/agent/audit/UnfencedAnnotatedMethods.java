package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentLog;
import dev.writerfence.internal.weaving.FencedMethodParser;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Methods carrying {@code @WriterFenced} that wrote with no fence held: weaving that is off is
 * never silent. An unfenced write whose stack passes through such a method (the annotation on the
 * method, or on its class for a public method) means the method ran unadvised: its class was not
 * woven, no Spring proxy advised the call, and the agent did not fence it. Each method is reported
 * once, on stderr and in the report, with the likely cause.
 *
 * <p>Asked only for the first unfenced write of a call site: the stack walk is the audit's costly
 * path already.
 */
final class UnfencedAnnotatedMethods {
  /**
   * The annotation's name. Built at run time: the shaded jar's relocation would rewrite a constant
   * that starts with the project's package, and the application's annotation is not relocated.
   */
  static final String ANNOTATION =
      String.join(".", "dev", "writerfence", "annotation", "WriterFenced");

  /**
   * One annotated method that wrote unfenced.
   *
   * @param method {@code class.method(parameter types)}
   * @param cause the likely cause, for the person reading the report
   * @param callSite the call site of its first unfenced write
   */
  record Finding(String method, String cause, String callSite) {}

  private static final String NOT_WOVEN =
      "its class is not woven: AspectJ did not weave it (load-time: aspectjweaver without an"
          + " aop.xml that declares dev.writerfence.aspectj.WriterFencedAspect, or"
          + " writer-fence-aspectj missing from the class path; compile-time: the"
          + " aspectj-maven-plugin without writer-fence-aspectj on its aspect path), no Spring"
          + " proxy advised the call (a bean calling its own method through this), and the agent"
          + " fences @WriterFenced methods only with datasource.url or fence.methods set";

  private static final String WOVEN_ELSEWHERE =
      "its class is woven by AspectJ, yet this write ran without the fence the audit requires:"
          + " audit.require-fence names another fence than the method's, or the write ran after"
          + " the method's hold ended";

  private final StackWalker walker =
      StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE));
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private final List<Finding> findings = new CopyOnWriteArrayList<>();

  /**
   * Looks for annotated methods on the current stack and reports each one not reported before.
   *
   * @param callSite the write's call site, for the finding
   */
  void check(String callSite) {
    List<Method> annotated =
        walker.walk(
            frames -> {
              List<Method> found = new ArrayList<>();
              frames.forEach(
                  f -> {
                    Method m = annotatedMethod(f);
                    if (m != null) {
                      found.add(m);
                    }
                  });
              return found;
            });
    for (Method m : annotated) {
      String name = FencedMethodParser.describe(m);
      if (reported.add(name)) {
        Finding finding =
            new Finding(name, woven(m.getDeclaringClass()) ? WOVEN_ELSEWHERE : NOT_WOVEN, callSite);
        findings.add(finding);
        AgentLog.info(
            "@WriterFenced method "
                + name
                + " ran with no fence held and wrote at "
                + callSite
                + ": annotated but not fenced; likely cause: "
                + finding.cause());
      }
    }
  }

  /**
   * @return the methods reported so far, in the order found
   */
  List<Finding> findings() {
    return List.copyOf(findings);
  }

  private static Method annotatedMethod(StackWalker.StackFrame frame) {
    Class<?> type = frame.getDeclaringClass();
    try {
      Method m =
          type.getDeclaredMethod(frame.getMethodName(), frame.getMethodType().parameterArray());
      if (carries(m.getAnnotations())
          || (Modifier.isPublic(m.getModifiers()) && carries(type.getAnnotations()))) {
        return m;
      }
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // A constructor, a lambda form, a class that cannot be read: not an annotated method.
    }
    return null;
  }

  private static boolean carries(java.lang.annotation.Annotation[] annotations) {
    for (java.lang.annotation.Annotation a : annotations) {
      if (a.annotationType().getName().equals(ANNOTATION)) {
        return true;
      }
    }
    return false;
  }

  /** AspectJ leaves its marks in a woven class: {@code ajc$} fields and methods. */
  private static boolean woven(Class<?> type) {
    try {
      for (Field f : type.getDeclaredFields()) {
        if (f.getName().startsWith("ajc$")) {
          return true;
        }
      }
      for (Method m : type.getDeclaredMethods()) {
        if (m.getName().startsWith("ajc$") || m.getName().contains("_aroundBody")) {
          return true;
        }
      }
    } catch (RuntimeException | LinkageError e) {
      // unreadable: say not woven, the likelier cause
    }
    return false;
  }
}
