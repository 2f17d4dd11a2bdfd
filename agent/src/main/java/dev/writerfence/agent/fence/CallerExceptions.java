package dev.writerfence.agent.fence;

import dev.writerfence.FenceLostException;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.WriterFenceException;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.time.Instant;

/**
 * The exceptions a fenced call of the agent throws before the method runs (busy, unavailable,
 * interrupted), as the application's own copy of writer-fence core defines them, when the fenced
 * class sees one: its {@code catch (WriterFenceBusyException e)} names that class, not the agent's
 * relocated copy. Without core in the application (a legacy jar), the agent's own exception is
 * thrown, whose simple name and message are the same.
 *
 * <p>Only the failure path pays for this: one class look-up and one reflective constructor call.
 */
final class CallerExceptions {
  /**
   * Core's package as the application sees it. Built at run time: relocation rewrites string
   * constants that start with the project's package to the agent's shaded one.
   */
  private static final String APPLICATION_CORE = String.join(".", "dev", "writerfence");

  private CallerExceptions() {}

  /**
   * @param fencedType the class whose method was fenced; its loader is asked for core's class
   * @param own what the agent's copy of core threw; never {@code null}
   * @return the same failure as the application's class of the same name, with the same fence name,
   *     message, cause, values and stack trace; {@code own} itself when the fenced class sees no
   *     such class of core (or sees the agent's own, when the agent is not shaded)
   */
  static RuntimeException forCaller(Class<?> fencedType, WriterFenceException own) {
    Class<?> theirs = applicationClass(fencedType, own.getClass().getSimpleName());
    if (theirs == null
        || theirs == own.getClass()
        || !RuntimeException.class.isAssignableFrom(theirs)) {
      return own;
    }
    try {
      RuntimeException translated = construct(theirs, own);
      translated.setStackTrace(own.getStackTrace());
      return translated;
    } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
      // An older or newer core without that constructor: the agent's own still refuses the call.
      own.addSuppressed(e);
      return own;
    }
  }

  private static Class<?> applicationClass(Class<?> fencedType, String simpleName) {
    ClassLoader loader = fencedType.getClassLoader();
    if (loader == null) {
      return null;
    }
    try {
      return Class.forName(APPLICATION_CORE + "." + simpleName, false, loader);
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  private static RuntimeException construct(Class<?> theirs, WriterFenceException own)
      throws ReflectiveOperationException {
    Object made;
    try {
      if (own instanceof WriterFenceBusyException busy) {
        Constructor<?> c =
            theirs.getConstructor(String.class, int.class, String.class, Instant.class);
        made =
            c.newInstance(
                busy.fenceName(),
                busy.attempts(),
                busy.holderLabel().orElse(null),
                busy.holderExpiresAt().orElse(null));
      } else if (own instanceof FenceLostException lost) {
        Constructor<?> c =
            theirs.getConstructor(
                String.class, long.class, String.class, String.class, Throwable.class);
        made =
            c.newInstance(
                lost.fenceName(),
                lost.fencingToken(),
                lost.reason(),
                lost.getMessage(),
                lost.getCause());
      } else {
        // WriterFenceUnavailableException and WriterFenceInterruptedException.
        Constructor<?> c = theirs.getConstructor(String.class, String.class, Throwable.class);
        made = c.newInstance(own.fenceName(), own.getMessage(), own.getCause());
      }
    } catch (InvocationTargetException e) {
      throw new IllegalStateException("the application's " + theirs.getName() + " refused", e);
    }
    return (RuntimeException) made;
  }
}
