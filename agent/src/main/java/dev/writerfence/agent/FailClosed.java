package dev.writerfence.agent;

import java.lang.instrument.IllegalClassFormatException;

/**
 * What happens to a class that fails to instrument. A class a fail-closed feature ({@link
 * AgentFeature#failsClosed()}: the fence) would instrument must not run without its advice, so it
 * is refused: its definition fails with {@code NoClassDefFoundError} (see {@link RefusedClass}). A
 * class already loaded (retransformation) cannot be refused: it keeps running unfenced, and the
 * agent says so. Any other class loads unchanged: the audit in log mode must never break the app.
 * Each outcome is one stderr line, once per class.
 *
 * <p>Byte Buddy reports a failure to its listener inside the transformer's call, on the loading
 * thread: each call is an {@code Attempt} in a thread local, so a failure is tied to the class
 * being transformed on this thread and never to another. JDK code only.
 */
public final class FailClosed {
  private static final ThreadLocal<Attempt> CURRENT = new ThreadLocal<>();

  private FailClosed() {}

  /**
   * Called by a fail-closed feature's transformation when it starts on a class: from then on a
   * failure to instrument that class refuses it, whether or not a prefilter named it.
   *
   * @param binaryName the class being transformed ({@code com.acme.Uploader}); not {@code null}
   */
  public static void instrumenting(String binaryName) {
    Attempt attempt = CURRENT.get();
    if (attempt != null && attempt.binaryName.equals(binaryName)) {
      attempt.instrumenting = true;
    }
  }

  /** A transformer's call, whose failure {@link #transform} turns into the class's outcome. */
  @FunctionalInterface
  interface Call {
    byte[] transform() throws IllegalClassFormatException;
  }

  /**
   * Runs a transformer's call for one class and decides what a failure reported during it means.
   *
   * @param internalName the class, as the JVM names it; {@code null} for a hidden class
   * @param loader its loader
   * @param redefined the class when it is being retransformed, else {@code null}
   * @param classFile its class file
   * @param failClosed the classes fail-closed features claim
   * @param call the delegate's transformation; a failure is what it reports to {@link
   *     #reportedByByteBuddy} for this class, or else anything it throws
   * @return the delegate's answer; on a failure, {@link RefusedClass}'s class file for a refused
   *     class, else {@code null} (unchanged)
   * @throws IllegalClassFormatException when the delegate throws it for a hidden class (no name)
   */
  static byte[] transform(
      String internalName,
      ClassLoader loader,
      Class<?> redefined,
      byte[] classFile,
      Prefilter failClosed,
      Call call)
      throws IllegalClassFormatException {
    if (internalName == null) {
      return call.transform(); // hidden and lambda classes: no prefilter names them
    }
    Attempt attempt = new Attempt(internalName.replace('/', '.'), CURRENT.get());
    CURRENT.set(attempt);
    byte[] result = null;
    try {
      result = call.transform();
    } catch (IllegalClassFormatException | RuntimeException | Error e) {
      // Byte Buddy rethrows what it reported ("Failed transformation of ..."), and the JVM would
      // ignore the exception and load the class unchanged: decided here instead.
      if (attempt.failure == null) {
        attempt.failure = e;
      }
    } finally {
      CURRENT.set(attempt.previous);
    }
    if (attempt.failure == null) {
      return result;
    }
    boolean claimed = attempt.instrumenting || failClosed.claims(internalName, loader, classFile);
    return failed(internalName, redefined != null, claimed, attempt.failure);
  }

  /**
   * Called from Byte Buddy's listener: records the failure on the attempt of the same class on this
   * thread, or, outside any attempt, reports it at once (the class loads unchanged).
   *
   * @param binaryName the class that failed
   * @param throwable why
   */
  static void reportedByByteBuddy(String binaryName, Throwable throwable) {
    Attempt attempt = CURRENT.get();
    if (attempt != null && attempt.binaryName.equals(binaryName)) {
      if (attempt.failure == null) {
        attempt.failure = throwable;
      }
    } else {
      log(binaryName, "could not instrument " + binaryName + ", left unchanged: ", throwable);
    }
  }

  /**
   * @param internalName the class that failed
   * @param loaded whether it is already loaded (retransformation)
   * @param claimed whether a fail-closed feature would instrument it
   * @param failure why
   * @return what the transformer answers: the refused class file, or {@code null} (unchanged)
   */
  static byte[] failed(String internalName, boolean loaded, boolean claimed, Throwable failure) {
    String name = internalName.replace('/', '.');
    if (!claimed) {
      log(name, "could not instrument " + name + ", left unchanged: ", failure);
      return null;
    }
    if (loaded) {
      log(
          name,
          "could not instrument "
              + name
              + ", already loaded so it cannot be refused: it keeps running unfenced, its fenced"
              + " methods take no lease; restart with the agent on the command line: ",
          failure);
      return null;
    }
    log(name, "refused to load " + name + ", its fenced methods would run unfenced: ", failure);
    return RefusedClass.classFile(internalName);
  }

  /** One line whatever the cause holds: hosts often parse their standard error by line. */
  private static void log(String binaryName, String message, Throwable cause) {
    AgentLog.once(
        binaryName, message + String.valueOf(cause).replaceAll("\\s*\\R\\s*", " ").trim());
  }

  private static final class Attempt {
    final String binaryName;
    final Attempt previous;
    boolean instrumenting;
    Throwable failure;

    Attempt(String binaryName, Attempt previous) {
      this.binaryName = binaryName;
      this.previous = previous;
    }
  }
}
