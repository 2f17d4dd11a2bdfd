package dev.writerfence.samples.spring;

import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.springframework.boot.loader.tools.Library;
import org.springframework.boot.loader.tools.LibraryScope;
import org.springframework.boot.loader.tools.Repackager;

/**
 * Spring Boot executable jars of the test class path, built with the code the {@code
 * spring-boot-maven-plugin} repackage goal runs: every class directory of the test class path in
 * {@code BOOT-INF/classes}, every jar (the sample's own included, the agent's not) in {@code
 * BOOT-INF/lib}.
 */
final class BootJars {
  /** Boot's launcher for executable jars: {@code java -cp app.jar JarLauncher} runs the jar. */
  static final String LAUNCHER = "org.springframework.boot.loader.launch.JarLauncher";

  /**
   * The real agent jar, for {@code -javaagent:} in the ITs; copied by the build in
   * pre-integration-test (see the pom), relative to the module.
   */
  static final Path AGENT_JAR =
      Path.of("target", "agent", "writer-fence-agent.jar").toAbsolutePath();

  private BootJars() {}

  /**
   * @param dir where to write the jars
   * @param mainClass the application's main class, on the test class path
   * @return the executable jar, {@code dir/boot-app.jar}
   */
  static Path ofTestClassPath(Path dir, Class<?> mainClass) {
    List<Path> classDirs = new ArrayList<>();
    List<Path> jars = new ArrayList<>();
    for (String entry : ForkedJvm.testClassPath().split(File.pathSeparator)) {
      Path p = Path.of(entry);
      if (Files.isDirectory(p)) {
        classDirs.add(p);
      } else if (entry.endsWith(".jar")
          && Files.isRegularFile(p)
          && !p.getFileName().toString().startsWith("writer-fence-agent")) {
        // The agent jar is on the test class path only to order the reactor; it runs as -javaagent.
        jars.add(p);
      }
    }
    try {
      Path app = plainJar(dir.resolve("app.jar"), classDirs);
      Path fat = dir.resolve("boot-app.jar");
      Repackager repackager = new Repackager(app.toFile());
      repackager.setMainClass(mainClass.getName());
      repackager.repackage(
          fat.toFile(),
          callback -> {
            for (Path jar : jars) {
              callback.library(new Library(jar.toFile(), LibraryScope.COMPILE));
            }
          });
      return fat;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path plainJar(Path jar, List<Path> classDirs) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file, manifest)) {
      for (Path root : classDirs) {
        try (Stream<Path> files = Files.walk(root)) {
          for (Path f : files.filter(Files::isRegularFile).toList()) {
            String name = root.relativize(f).toString().replace(File.separatorChar, '/');
            if (!name.equals("META-INF/MANIFEST.MF")) {
              out.putNextEntry(new JarEntry(name));
              Files.copy(f, out);
              out.closeEntry();
            }
          }
        }
      }
    }
    return jar;
  }
}
