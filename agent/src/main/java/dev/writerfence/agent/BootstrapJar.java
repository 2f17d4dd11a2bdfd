package dev.writerfence.agent;

import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.jar.JarFile;

/**
 * Places the bootstrap classes (the held-fence stack and the audit gate) in the bootstrap class
 * loader, before anything loads them, so every class loader of the JVM resolves one copy (see
 * docs/architecture.md, "Fence state across class loaders"). They travel inside the agent jar as
 * {@value #RESOURCE}, a jar of its own, and are written to a temporary file that is deleted when
 * the JVM exits.
 */
final class BootstrapJar {
  static final String RESOURCE = "META-INF/writer-fence/writer-fence-bootstrap.jar";

  private BootstrapJar() {}

  static void append(Instrumentation instrumentation) throws IOException {
    Path jar = Files.createTempFile("writer-fence-bootstrap-", ".jar");
    jar.toFile().deleteOnExit();
    try (InputStream in = BootstrapJar.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IOException("the agent jar has no " + RESOURCE);
      }
      Files.copy(in, jar, StandardCopyOption.REPLACE_EXISTING);
    }
    instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar.toFile()));
  }
}
