package com.acme.legacy;

import java.lang.reflect.Method;

/**
 * A legacy application for the compatibility runs: no writer-fence class on its class path, so it
 * reaches the held-fence stack only by name, as the agent's advice does. It prints one line per
 * fact the tests check, and {@code done} last.
 */
public final class CompatApp {
  /**
   * Byte Buddy's bridge to the JDK's class file API, in the agent jar's {@code
   * META-INF/versions/24} tree: loadable on Java 24 and later only if the build moved it under the
   * relocated package.
   */
  private static final String CLASS_FILE_BRIDGE =
      "dev.writerfence.agent.shaded.net.bytebuddy.jar.asmjdkbridge.JdkClassReader";

  private CompatApp() {}

  /**
   * @param args ignored
   * @throws Exception when the held-fence stack cannot be asked
   */
  public static void main(String[] args) throws Exception {
    System.out.println("java " + Runtime.version().feature());
    Class<?> stack = Class.forName("dev.writerfence.bootstrap.HeldFenceStack");
    System.out.println("stack-loader " + (stack.getClassLoader() == null ? "bootstrap" : "other"));
    System.out.println("class-file-bridge " + loadable(CLASS_FILE_BRIDGE));
    System.out.println("greeting " + greeting());
    fencedWork();
    System.out.println("after-held " + holdsAny());
    System.out.println("done");
  }

  /** A second agent's advice changes what this returns. */
  static String greeting() {
    return "hello";
  }

  /** Named in the agent's {@code fence.methods}. */
  static void fencedWork() throws Exception {
    System.out.println("inside-held " + holdsAny());
  }

  private static boolean loadable(String className) {
    try {
      Class.forName(className, false, ClassLoader.getSystemClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  static boolean holdsAny() throws Exception {
    Method holds =
        Class.forName("dev.writerfence.bootstrap.HeldFenceStack").getMethod("holds", String.class);
    return (Boolean) holds.invoke(null, (Object) null);
  }
}
