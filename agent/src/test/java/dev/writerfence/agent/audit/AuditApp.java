package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.example.audit.MixedWriterApp;

/**
 * One run of {@link MixedWriterApp} in its own JVM with the real agent jar, to its end. The app's
 * class path is the test class path without this module's own classes, so the agent's classes come
 * from the shaded jar only.
 *
 * @param exitCode the process's exit status
 * @param output its standard output, one line per entry
 * @param errors its standard error (the agent's summary goes there)
 */
record AuditApp(int exitCode, List<String> output, String errors) {
  /** The jar {@code package} builds, relative to the module (failsafe's working directory). */
  static final Path AGENT_JAR = Path.of("target", "writer-fence-agent.jar").toAbsolutePath();

  /**
   * Runs {@link MixedWriterApp} to its end and checks that it ended well.
   *
   * @param settings agent settings as {@code key=value}, without the {@code writer-fence.} prefix
   * @param args the app's arguments
   */
  static AuditApp run(List<String> settings, String... args)
      throws IOException, InterruptedException {
    AuditApp run = launch(ForkedJvm.javaBinary(), MixedWriterApp.class.getName(), settings, args);
    assertThat(run.exitCode()).as("exit status; stderr:%n%s", run.errors()).isZero();
    assertThat(run.output()).as("stderr:%n%s", run.errors()).contains("done");
    return run;
  }

  /**
   * Runs a main class with the real agent jar to its end, its output and errors kept in full.
   *
   * @param java the {@code java} binary
   * @param mainClass the main class's binary name, on the test class path
   * @param settings agent settings as {@code key=value}, without the {@code writer-fence.} prefix
   * @param args the app's arguments
   * @return how it ended
   * @throws AssertionError when it runs longer than 4 minutes
   */
  static AuditApp launch(String java, String mainClass, List<String> settings, String... args)
      throws IOException, InterruptedException {
    return launch(java, List.of(), mainClass, settings, args);
  }

  /**
   * As {@link #launch(String, String, List, String...)}, with JVM options of the app's own.
   *
   * @param jvmOptions options after the default ones, such as {@code --add-opens ...}
   */
  static AuditApp launch(
      String java, List<String> jvmOptions, String mainClass, List<String> settings, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(ForkedJvm.DEFAULT_JVM_OPTIONS);
    command.addAll(jvmOptions);
    command.add("-javaagent:" + AGENT_JAR);
    for (String s : settings) {
      command.add("-Dwriter-fence." + s);
    }
    command.add("-cp");
    command.add(applicationClassPath());
    command.add(mainClass);
    command.addAll(List.of(args));
    Path out = Files.createTempFile("audit-app-", ".out");
    Path err = Files.createTempFile("audit-app-", ".err");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      if (!process.waitFor(4, TimeUnit.MINUTES)) {
        process.destroyForcibly();
        throw new AssertionError(
            mainClass + " did not end within 4 minutes: " + Files.readString(err));
      }
      return new AuditApp(
          process.exitValue(),
          Files.readAllLines(out, StandardCharsets.UTF_8),
          Files.readString(err, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /**
   * @return the test class path without this module's own classes and jars
   */
  static String applicationClassPath() {
    Path ownClasses = Path.of("target", "classes").toAbsolutePath();
    List<String> kept = new ArrayList<>();
    for (String entry : ForkedJvm.testClassPath().split(File.pathSeparator)) {
      Path p = Path.of(entry).toAbsolutePath();
      boolean ownJar =
          p.getParent() != null
              && p.getParent().equals(ownClasses.getParent())
              && p.getFileName().toString().startsWith("writer-fence-agent");
      if (!p.equals(ownClasses) && !ownJar) {
        kept.add(entry);
      }
    }
    return String.join(File.pathSeparator, kept);
  }
}
