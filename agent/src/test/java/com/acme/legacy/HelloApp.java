package com.acme.legacy;

import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Collections;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The smallest application: start-up cost is measured on it, with and without the agent. Given a
 * jar, it also loads every class of that jar (without initializing them), as a large application
 * does at start-up, so that the cost of matching each loaded class shows.
 */
public final class HelloApp {
  private HelloApp() {}

  /**
   * @param args nothing, or a jar whose classes to load
   * @throws IOException when the jar cannot be read
   */
  public static void main(String[] args) throws IOException {
    int loaded = args.length == 0 ? 0 : loadAll(new File(args[0]));
    System.out.println("hello, " + loaded + " classes loaded");
  }

  private static int loadAll(File jar) throws IOException {
    int loaded = 0;
    try (JarFile file = new JarFile(jar);
        URLClassLoader loader =
            new URLClassLoader(new URL[] {jar.toURI().toURL()}, HelloApp.class.getClassLoader())) {
      for (JarEntry e : Collections.list(file.entries())) {
        String name = e.getName();
        if (name.endsWith(".class") && !name.contains("-") && !name.startsWith("META-INF/")) {
          try {
            Class.forName(name.replace('/', '.').replace(".class", ""), false, loader);
            loaded++;
          } catch (ClassNotFoundException | LinkageError ex) {
            // A class whose optional dependency is absent: skipped, as a lazy application would.
          }
        }
      }
    }
    return loaded;
  }

  /** Named in {@code fence.methods} by the measurement, never called: matching costs, not JDBC. */
  static void upload() {
    System.out.println("upload");
  }
}
