package dev.writerfence.cli.audit;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;

/**
 * Finds the shaded agent jar that {@code audit} and the demo's legacy writer attach.
 *
 * <p>The build of each module that attaches it (cli, demo) copies it to {@code
 * agent/writer-fence-agent.jar} beside that module's jar ({@code cli/target/agent/}, {@code
 * demo/target/agent/}); the same rule finds it from {@code target/classes} when the classes run
 * unpackaged (tests). The system property {@code writer-fence.agent.jar} names another jar.
 */
public final class AgentJar {
  /** A system property naming the agent jar, which wins over the one beside the CLI. */
  public static final String PROPERTY =
      dev.writerfence.internal.config.SettingsCatalog.AGENT_JAR.property();

  private AgentJar() {}

  /**
   * @return the absolute path of an existing agent jar, the one beside the CLI's jar or classes
   * @throws IllegalStateException when there is none, naming the path looked at and how to build it
   */
  public static Path locate() {
    return locate(AgentJar.class, "cli");
  }

  /**
   * @param anchor a class of the module whose build copied the agent jar beside its jar or classes
   * @param module that module's folder, for the build command the error names: {@code cli} or
   *     {@code demo}
   * @return the absolute path of an existing agent jar
   * @throws IllegalStateException when there is none, naming the path looked at and how to build it
   */
  public static Path locate(Class<?> anchor, String module) {
    String named = System.getProperty(PROPERTY);
    Path jar =
        named != null && !named.isBlank()
            ? Path.of(named).toAbsolutePath()
            : beside(anchor).resolve("agent").resolve("writer-fence-agent.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no agent jar at "
              + jar
              + ": build it with 'mvn package -pl "
              + module
              + " -am' (the ./writer-fence launcher does), or name one with -D"
              + PROPERTY
              + "=FILE");
    }
    return jar;
  }

  /** The folder holding the anchor's jar, or the folder holding its classes folder. */
  private static Path beside(Class<?> anchor) {
    CodeSource source = anchor.getProtectionDomain().getCodeSource();
    if (source == null || source.getLocation() == null) {
      throw new IllegalStateException(
          anchor.getName() + " has no location to find the agent jar by");
    }
    try {
      Path location = Path.of(source.getLocation().toURI()).toAbsolutePath();
      return location.getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(
          anchor.getName() + "'s location is not a file: " + source.getLocation(), e);
    }
  }
}
