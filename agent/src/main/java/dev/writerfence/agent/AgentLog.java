package dev.writerfence.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's own start-up and failure lines, on standard error, each prefixed with the agent's
 * name and version. Plain {@code System.err}: premain sets up no logging framework (that would cost
 * start-up time and could clash with the host's).
 */
public final class AgentLog {
  private static final Set<String> ONCE = ConcurrentHashMap.newKeySet();

  private AgentLog() {}

  /**
   * @return the agent's version from its jar manifest, or {@code "dev"} when run from classes
   */
  public static String version() {
    String v = AgentLog.class.getPackage().getImplementationVersion();
    return v == null ? "dev" : v;
  }

  /**
   * @param message one line
   */
  public static void info(String message) {
    System.err.println("writer-fence agent " + version() + ": " + message);
  }

  /**
   * Writes {@code message} the first time {@code key} is seen, and never again.
   *
   * @param key what makes two messages the same (for example the class name)
   * @param message one line
   */
  public static void once(String key, String message) {
    if (ONCE.add(key)) {
      info(message);
    }
  }
}
