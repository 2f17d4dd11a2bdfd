package dev.writerfence.agent.compat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;

/**
 * One {@code java} process run to its end, with or without the real agent jar: the JDK, class path,
 * options, main class and arguments are chosen per run, unlike core's {@code ForkedJvm}, which
 * reuses this JVM's binary and test class path.
 */
final class AgentJvm {
  /** The jar {@code package} builds, relative to the module (failsafe's working directory). */
  static final Path AGENT_JAR = Path.of("target", "writer-fence-agent.jar").toAbsolutePath();

  /** Temurin 25 as installed on the machine and in CI. */
  static final Path JAVA_25 = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private final List<String> command = new ArrayList<>();
  private final List<String> classPath = new ArrayList<>();
  private final List<String> options = new ArrayList<>();
  private final List<String> launch = new ArrayList<>();
  private final List<String> args = new ArrayList<>();

  private AgentJvm(Path java) {
    command.add(java.toString());
  }

  /**
   * @return a run on this JVM's own {@code java} (Java 17 in the build)
   */
  static AgentJvm onThisJdk() {
    return new AgentJvm(Path.of(System.getProperty("java.home"), "bin", "java"));
  }

  /**
   * @param java a {@code java} binary
   * @return a run on it
   */
  static AgentJvm on(Path java) {
    return new AgentJvm(java);
  }

  /** Attaches the real agent jar with settings as {@code -Dwriter-fence.*} options. */
  AgentJvm withAgent(String... settings) {
    options.add("-javaagent:" + AGENT_JAR);
    for (String s : settings) {
      options.add("-Dwriter-fence." + s);
    }
    return this;
  }

  AgentJvm option(String option) {
    options.add(option);
    return this;
  }

  AgentJvm classPath(Path... entries) {
    for (Path p : entries) {
      classPath.add(p.toAbsolutePath().toString());
    }
    return this;
  }

  /** Runs {@code -jar jar} instead of a main class. */
  AgentJvm jar(Path jar, String... arguments) {
    launch.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
    args.addAll(List.of(arguments));
    return this;
  }

  AgentJvm main(Class<?> mainClass, String... arguments) {
    return main(mainClass.getName(), arguments);
  }

  AgentJvm main(String mainClass, String... arguments) {
    launch.add(mainClass);
    args.addAll(List.of(arguments));
    return this;
  }

  /**
   * @return the agent's version, as its manifest states it and its log lines print it
   */
  static String agentVersion() {
    try (JarFile jar = new JarFile(AGENT_JAR.toFile())) {
      return jar.getManifest().getMainAttributes().getValue("Implementation-Version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Runs the process to its end.
   *
   * @return its exit status and output
   * @throws AssertionError when it does not end within a few minutes (it is killed then)
   */
  Result run() {
    List<String> full = new ArrayList<>(command);
    // Small and quick, as core's forked JVMs: the machine is shared by several builds.
    full.addAll(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx256m"));
    full.addAll(options);
    if (!classPath.isEmpty()) {
      full.add("-cp");
      full.add(String.join(File.pathSeparator, classPath));
    }
    full.addAll(launch);
    full.addAll(args);
    try {
      Path out = Files.createTempFile("writer-fence-compat-", ".out");
      Path err = Files.createTempFile("writer-fence-compat-", ".err");
      Process p =
          new ProcessBuilder(full)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError(
            "still running after " + TIMEOUT + ": " + full + "\n" + Files.readString(err));
      }
      Result r =
          new Result(
              full,
              p.exitValue(),
              Files.readAllLines(out, StandardCharsets.UTF_8),
              Files.readString(err, StandardCharsets.UTF_8));
      Files.delete(out);
      Files.delete(err);
      return r;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + full, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * @param command the whole command line
   * @param exitStatus the process's exit status
   * @param stdout its standard output, line by line
   * @param stderr its standard error
   */
  record Result(List<String> command, int exitStatus, List<String> stdout, String stderr) {
    /** For assertion messages: the command and everything the process printed. */
    String describe() {
      return String.join(" ", command)
          + "\nexit "
          + exitStatus
          + "\n--- stdout\n"
          + String.join("\n", stdout)
          + "\n--- stderr\n"
          + stderr;
    }
  }
}
