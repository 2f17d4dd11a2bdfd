package com.acme.legacy;

import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

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
   * @param args a directory under the agent's {@code audit.paths}: one file is written in it inside
   *     the fenced method, {@code inside.txt}, and one after it, {@code outside.txt}
   * @throws Exception when the held-fence stack cannot be asked or a file cannot be written
   */
  public static void main(String[] args) throws Exception {
    System.out.println("java " + Runtime.version().feature());
    Class<?> stack = Class.forName("dev.writerfence.bootstrap.HeldFenceStack");
    System.out.println("stack-loader " + (stack.getClassLoader() == null ? "bootstrap" : "other"));
    System.out.println("class-file-bridge " + loadable(CLASS_FILE_BRIDGE));
    System.out.println("greeting " + greeting());
    Path dir = Path.of(args[0]);
    fencedWork(dir);
    System.out.println("after-held " + holdsAny());
    Files.writeString(dir.resolve("outside.txt"), "written with no fence held");
    System.out.println("done");
  }

  /** A second agent's advice changes what this returns. */
  static String greeting() {
    return "hello";
  }

  /** Named in the agent's {@code fence.methods}. */
  static void fencedWork(Path dir) throws Exception {
    System.out.println("inside-held " + holdsAny());
    Files.writeString(dir.resolve("inside.txt"), "written under the agent's fence");
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
