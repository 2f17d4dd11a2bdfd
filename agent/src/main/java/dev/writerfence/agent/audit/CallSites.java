package dev.writerfence.agent.audit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the call site of a write: the first stack frame, from the top, that belongs to the
 * application, skipping the JDK, writer-fence itself, the storage client libraries, and generated
 * proxies. A write with no application frame at all runs on a library's own thread (a multipart
 * part, an async continuation): it belongs to a logical write that was judged on the thread that
 * started it.
 */
final class CallSites {
  /**
   * The project's root package, {@code dev.writerfence}. Built at run time, because the shaded
   * jar's relocation rewrites every string constant that starts with it.
   */
  static final String PROJECT = String.join(".", "dev", "writerfence");

  /** Frames the first batch of a walk holds; a deeper call site only takes a second batch. */
  static final int ESTIMATED_DEPTH = 12;

  /**
   * Frames never taken for the application's: the JDK and the frameworks around writer-fence, whose
   * own packages are {@link ProjectPackages}.
   */
  private static final List<String> ALWAYS_SKIPPED =
      List.of(
          "java.",
          "javax.",
          "jdk.",
          "sun.",
          "com.sun.",
          "kotlin.",
          "scala.",
          "net.bytebuddy.",
          "org.springframework.",
          "org.aspectj.",
          "io.netty.",
          "org.reactivestreams.",
          "reactor.");

  private final String[] skipped;

  /** Whether a class is application code, decided once per class (the walk asks per frame). */
  private final ClassValue<Boolean> application =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          return isApplication(type.getName());
        }
      };

  /**
   * The application frame is a few frames below the recorder (the gate, the advised method and its
   * overloads, a client's wrappers): a small first batch, which the JDK fills and resolves whole,
   * costs less than its default.
   */
  private final StackWalker walker =
      StackWalker.getInstance(Set.of(StackWalker.Option.RETAIN_CLASS_REFERENCE), ESTIMATED_DEPTH);

  /**
   * @param libraryPackages the package prefixes of the audited client libraries
   */
  CallSites(List<String> libraryPackages) {
    List<String> all = new ArrayList<>(ALWAYS_SKIPPED);
    all.addAll(libraryPackages);
    this.skipped = all.toArray(new String[0]);
  }

  /**
   * The first application frame of the calling thread, as a key that is cheap to compare: the
   * frame's class, method and bytecode index. Resolving its file and line is left to {@link
   * Site#describe()}, which the recorder calls only for a call site it has not seen.
   *
   * @return the frame; empty when the stack has none
   */
  Optional<Site> find() {
    return walker.walk(
        frames ->
            frames.filter(f -> application.get(f.getDeclaringClass())).findFirst().map(Site::new));
  }

  /**
   * One frame of application code: equal for the same class, method and bytecode index, which is
   * all a repeated write from one place needs to be recognised.
   */
  static final class Site {
    private final StackWalker.StackFrame frame;
    private final Class<?> type;
    private final String method;
    private final int bci;

    Site(StackWalker.StackFrame frame) {
      this.frame = frame;
      this.type = frame.getDeclaringClass();
      this.method = frame.getMethodName();
      this.bci = frame.getByteCodeIndex();
    }

    /**
     * @return {@code class.method(File.java:line)}
     */
    String describe() {
      return frame.getClassName()
          + "."
          + method
          + "("
          + frame.getFileName()
          + ":"
          + frame.getLineNumber()
          + ")";
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Site other
          && type == other.type
          && bci == other.bci
          && method.equals(other.method);
    }

    @Override
    public int hashCode() {
      return (System.identityHashCode(type) * 31 + method.hashCode()) * 31 + bci;
    }
  }

  boolean isApplication(String className) {
    if (className.contains("$$")) {
      return false; // generated proxies and lambdas forms (Spring CGLIB, Byte Buddy, JDK)
    }
    int lastDot = className.lastIndexOf('.');
    if (lastDot > 0 && className.substring(0, lastDot).equals(PROJECT)) {
      return false;
    }
    for (String prefix : skipped) {
      if (className.startsWith(prefix)) {
        return false;
      }
    }
    for (String prefix : ProjectPackages.prefixes()) {
      if (className.startsWith(prefix)) {
        return false;
      }
    }
    return true;
  }
}
