package dev.writerfence.agent.audit;

import dev.writerfence.WriterFence;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.audit.UnfencedWriteException;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Enumeration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * writer-fence's own packages, whose frames are never an application's call site: each as a prefix
 * ending in a dot, such as {@code dev.writerfence.store.}. Derived rather than listed: core's
 * packages are read from the copy of core the agent runs with (in the agent jar its relocated copy,
 * whose packages below the root are those of every application's own copy), the agent's and
 * bootstrap's from their classes. Only the two weaving modules the agent does not carry are named.
 * Core's root package itself is matched exactly by {@link CallSites}, so that example and demo code
 * in packages below it stays application code.
 */
final class ProjectPackages {
  /** Root packages, below {@link CallSites#PROJECT}, of the weaving modules the agent lacks. */
  private static final List<String> NOT_CARRIED = List.of("aspectj", "spring");

  private ProjectPackages() {}

  /** Read on first use, which is the first unfenced write: never at start-up. */
  private static final class Derived {
    static final List<String> PREFIXES = derive();
  }

  /**
   * @return the prefixes, sorted; never empty
   * @throws IllegalStateException when core's packages cannot be read from its jar or folder
   */
  static List<String> prefixes() {
    return Derived.PREFIXES;
  }

  private static List<String> derive() {
    Set<String> prefixes = new TreeSet<>();
    prefixes.add(AgentSettings.class.getPackageName() + ".");
    prefixes.add(HeldFenceStack.class.getPackageName() + ".");
    prefixes.add(UnfencedWriteException.class.getPackageName() + ".");
    for (String below : packagesBelow(WriterFence.class)) {
      prefixes.add(CallSites.PROJECT + "." + below + ".");
    }
    for (String module : NOT_CARRIED) {
      prefixes.add(CallSites.PROJECT + "." + module + ".");
    }
    return List.copyOf(prefixes);
  }

  /**
   * @param anchor a class in the root package of a jar or class folder
   * @return the names of the packages right below the anchor's package that hold classes
   * @throws IllegalStateException when there are none, or the anchor's location cannot be read
   */
  static Set<String> packagesBelow(Class<?> anchor) {
    String folder = anchor.getPackageName().replace('.', '/') + "/";
    CodeSource source = anchor.getProtectionDomain().getCodeSource();
    Set<String> found = new TreeSet<>();
    try {
      if (source == null || source.getLocation() == null) {
        throw new IllegalStateException(anchor.getName() + " has no code source");
      }
      Path location = Path.of(source.getLocation().toURI());
      if (Files.isDirectory(location)) {
        try (Stream<Path> children = Files.list(location.resolve(folder))) {
          children.filter(Files::isDirectory).forEach(p -> found.add(p.getFileName().toString()));
        }
      } else {
        try (JarFile jar = new JarFile(location.toFile())) {
          for (Enumeration<JarEntry> e = jar.entries(); e.hasMoreElements(); ) {
            String name = e.nextElement().getName();
            int slash = name.indexOf('/', folder.length());
            if (name.startsWith(folder) && slash > folder.length() && name.endsWith(".class")) {
              found.add(name.substring(folder.length(), slash));
            }
          }
        }
      }
    } catch (IOException | URISyntaxException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "cannot list the packages of writer-fence core below " + anchor.getPackageName(), e);
    }
    if (found.isEmpty()) {
      throw new IllegalStateException(
          "found no packages of writer-fence core below "
              + anchor.getPackageName()
              + " in "
              + source.getLocation());
    }
    return found;
  }
}
