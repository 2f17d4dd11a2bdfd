package dev.writerfence.agent.audit;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

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

  /** Frames never taken for the application's: the JDK, writer-fence, frameworks around it. */
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

  /** writer-fence's own packages below {@link #PROJECT} (the agent, core, its weavers). */
  private static final List<String> PROJECT_PACKAGES =
      List.of(
          "agent",
          "bootstrap",
          "audit",
          "aspectj",
          "context",
          "config",
          "retry",
          "store",
          "weaving",
          "spring");

  private final String[] skipped;

  /**
   * @param libraryPackages the package prefixes of the audited client libraries
   */
  CallSites(List<String> libraryPackages) {
    List<String> all = new ArrayList<>(ALWAYS_SKIPPED);
    for (String p : PROJECT_PACKAGES) {
      all.add(PROJECT + "." + p + ".");
    }
    all.addAll(libraryPackages);
    this.skipped = all.toArray(new String[0]);
  }

  /**
   * @return the first application frame of the calling thread, as {@code
   *     class.method(File.java:line)}; empty when the stack has none
   */
  Optional<String> find() {
    return StackWalker.getInstance()
        .walk(
            frames ->
                frames
                    .filter(f -> isApplication(f.getClassName()))
                    .findFirst()
                    .map(
                        f ->
                            f.getClassName()
                                + "."
                                + f.getMethodName()
                                + "("
                                + f.getFileName()
                                + ":"
                                + f.getLineNumber()
                                + ")"));
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
    return true;
  }
}
