package dev.writerfence.agent.compat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.springframework.boot.loader.tools.Library;
import org.springframework.boot.loader.tools.LibraryScope;
import org.springframework.boot.loader.tools.Repackager;

/**
 * Jars the compatibility tests run: a legacy application jar made of a few test classes only (no
 * writer-fence class on its class path), a second agent, and a Spring Boot fat jar repackaged by
 * Boot's own tooling. Libraries come from {@code target/compat-libs}, where the build copies them
 * before the integration tests (see the agent's pom).
 */
final class FixtureJars {
  /** Jars copied by the build: byte-buddy-older.jar, byte-buddy.jar, boot/*.jar. */
  static final Path LIBS = Path.of("target", "compat-libs").toAbsolutePath();

  private FixtureJars() {}

  /**
   * @param name the jar's file name, without {@code .jar}
   * @param manifest main attributes to add (for example {@code Premain-Class}); may be empty
   * @param classes the classes to copy, each with its nested classes
   * @return a jar in a fresh temporary directory
   */
  static Path jar(String name, Map<String, String> manifest, Class<?>... classes) {
    try {
      Path jar = Files.createTempDirectory("writer-fence-compat-").resolve(name + ".jar");
      Manifest mf = new Manifest();
      mf.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
      manifest.forEach((k, v) -> mf.getMainAttributes().put(new Attributes.Name(k), v));
      try (OutputStream file = Files.newOutputStream(jar);
          JarOutputStream out = new JarOutputStream(file, mf)) {
        for (Class<?> c : classes) {
          for (Path classFile : classFiles(c)) {
            String entry = c.getPackageName().replace('.', '/') + "/" + classFile.getFileName();
            out.putNextEntry(new JarEntry(entry));
            Files.copy(classFile, out);
            out.closeEntry();
          }
        }
      }
      return jar;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @param file a jar's file name in {@link #LIBS}
   * @return its path
   * @throws IllegalStateException when the build did not copy it
   */
  static Path lib(String file) {
    Path p = LIBS.resolve(file);
    if (!Files.isRegularFile(p)) {
      throw new IllegalStateException(
          p + " is missing: the build copies it in pre-integration-test");
    }
    return p;
  }

  /**
   * Repackages an application jar into a Spring Boot executable jar (classes in {@code
   * BOOT-INF/classes}, every jar of {@code target/compat-libs/boot} in {@code BOOT-INF/lib}) with
   * the same code the {@code spring-boot-maven-plugin} repackage goal runs.
   *
   * @param app the plain application jar
   * @param mainClass its main class
   * @return the fat jar, beside {@code app}
   */
  static Path bootJar(Path app, Class<?> mainClass) {
    Path fat = app.resolveSibling("boot-app.jar");
    try (Stream<Path> jars = Files.list(LIBS.resolve("boot"))) {
      List<Path> libs = jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList();
      if (libs.isEmpty()) {
        throw new IllegalStateException(LIBS.resolve("boot") + " has no jars");
      }
      Repackager repackager = new Repackager(app.toFile());
      repackager.setMainClass(mainClass.getName());
      repackager.repackage(
          fat.toFile(),
          callback -> {
            for (Path lib : libs) {
              callback.library(new Library(lib.toFile(), LibraryScope.COMPILE));
            }
          });
      return fat;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The class file of {@code c} and of each class nested in it, from the test classes. */
  private static List<Path> classFiles(Class<?> c) throws IOException {
    Path dir;
    try {
      dir =
          Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())
              .resolve(c.getPackageName().replace('.', '/'));
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
    List<Path> files = new ArrayList<>();
    files.add(dir.resolve(c.getSimpleName() + ".class"));
    try (DirectoryStream<Path> nested =
        Files.newDirectoryStream(dir, c.getSimpleName() + "$*.class")) {
      nested.forEach(files::add);
    }
    return files;
  }
}
