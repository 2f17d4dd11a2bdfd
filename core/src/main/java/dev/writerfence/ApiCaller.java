package dev.writerfence;

import java.util.List;

/**
 * Who took a lease through the Java API ({@link WriterFence#call}, {@link WriterFence#run}, {@link
 * WriterFence#acquire} and the others), for the audit's writer map: the first frame of the calling
 * thread outside writer-fence's own packages, as {@code com.acme.Main.main(Main.java:20)}. One walk
 * per lease taken, never per call that joins a hold: a lease costs a database round trip, the walk
 * a few microseconds.
 */
final class ApiCaller {
  /** The project's root package, spelled so that the agent's relocation leaves it as it is. */
  private static final String PROJECT = String.join(".", "dev", "writerfence") + ".";

  /** Packages below the root that hold applications (the demo, the samples), not the library. */
  private static final List<String> APPLICATIONS = List.of(PROJECT + "demo.", PROJECT + "samples.");

  private static final StackWalker WALKER = StackWalker.getInstance();

  private ApiCaller() {}

  /**
   * @return the first frame outside writer-fence's own packages, or {@code null} when the thread
   *     has none (writer-fence's own thread took the lease)
   */
  static String find() {
    return WALKER.walk(
        frames ->
            frames
                .filter(f -> !isOwn(f.getClassName()))
                .findFirst()
                .map(ApiCaller::describe)
                .orElse(null));
  }

  /**
   * @param className a frame's class
   * @return whether it is writer-fence's own (core in any copy, the agent, the weaving modules)
   */
  static boolean isOwn(String className) {
    if (!className.startsWith(PROJECT)) {
      return false;
    }
    for (String application : APPLICATIONS) {
      if (className.startsWith(application)) {
        return false;
      }
    }
    return true;
  }

  private static String describe(StackWalker.StackFrame f) {
    String file = f.getFileName();
    String where =
        file == null
            ? "Unknown Source"
            : f.getLineNumber() >= 0 ? file + ":" + f.getLineNumber() : file;
    return f.getClassName() + "." + f.getMethodName() + "(" + where + ")";
  }
}
