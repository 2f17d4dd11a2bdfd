package dev.writerfence.agent.fence;

import com.acme.app.LegacyApp;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The legacy sample run in a JVM of its own with the real agent jar and a config file, on a class
 * path that holds the legacy jar alone: no writer-fence class reaches it but through the agent.
 */
final class LegacyJvm {
  /** The jar {@code package} builds, relative to the module (failsafe's working directory). */
  static final Path AGENT_JAR = Path.of("target", "writer-fence-agent.jar").toAbsolutePath();

  static final Duration START = Duration.ofSeconds(60);

  private LegacyJvm() {}

  /**
   * @param dir where the config file is written
   * @param settings config file lines, {@code key=value}, without the {@code writer-fence.} prefix
   * @return the config file
   */
  static Path config(Path dir, String... settings) {
    try {
      Path file = Files.createTempFile(dir, "agent-", ".properties");
      Files.write(file, List.of(settings), StandardCharsets.UTF_8);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @param db the database the settings point at
   * @return {@code datasource.*} lines for it
   */
  static List<String> dataSource(EmbeddedDatabase db) {
    return List.of("datasource.url=" + db.jdbcUrl(), "datasource.username=postgres");
  }

  /**
   * Starts the legacy application in its command mode and waits for it to be ready.
   *
   * @param config the agent's config file
   * @param bucket the bucket directory
   * @return the running application
   */
  static ForkedJvm start(Path config, Path bucket) {
    ForkedJvm jvm = launch(config, bucket.toString());
    jvm.awaitLine("ready", START);
    return jvm;
  }

  /**
   * Starts the legacy application as given, without waiting.
   *
   * @param config the agent's config file
   * @param args the application's arguments
   * @return the process
   */
  static ForkedJvm launch(Path config, String... args) {
    List<String> options = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    options.add("-javaagent:" + AGENT_JAR + "=config=" + config);
    return ForkedJvm.start(options, legacyJar(), LegacyApp.class.getName(), args);
  }

  /**
   * An application's class path beside the agent: this module's test classes (the application) and
   * the jars of the given {@code target/compat-libs} folders, never the agent's classes.
   *
   * @param libs folder names under {@code target/compat-libs}, e.g. {@code app-pool}
   * @return the class path
   * @throws IOException when a folder cannot be listed
   */
  static String appClassPath(String... libs) throws IOException {
    Path compat = Path.of("target", "compat-libs").toAbsolutePath();
    List<String> entries = new ArrayList<>();
    entries.add(Path.of("target", "test-classes").toAbsolutePath().toString());
    for (String lib : libs) {
      try (Stream<Path> jars = Files.list(compat.resolve(lib))) {
        jars.filter(p -> p.toString().endsWith(".jar"))
            .sorted()
            .forEach(p -> entries.add(p.toString()));
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /**
   * @return the legacy sample's jar (or classes directory in a reactor build before packaging)
   */
  static String legacyJar() {
    try {
      return Path.of(LegacyApp.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
