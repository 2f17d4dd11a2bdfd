package dev.writerfence.bootstrap;

/**
 * Whether a writer-fence agent in this JVM fences the {@code @WriterFenced} methods that no weaving
 * reached. The agent says so when its fence is configured; core's start-up weaving check then
 * leaves those methods to it. An agent that only audits does not say so: it reports an unwoven
 * annotated method only when that method writes to an audited store, so the check still judges.
 *
 * <p>On the bootstrap class path with the agent, so the agent and the application see one flag.
 */
public final class FencingAgent {
  private static volatile boolean fencesAnnotatedMethods;

  private FencingAgent() {}

  /** Called by the agent when it fences {@code @WriterFenced} methods it finds unwoven. */
  public static void fencesAnnotatedMethods() {
    fencesAnnotatedMethods = true;
  }

  /**
   * @return whether an agent fences the {@code @WriterFenced} methods no weaving reached
   */
  public static boolean active() {
    return fencesAnnotatedMethods;
  }
}
