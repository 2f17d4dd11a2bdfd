package dev.writerfence.testing.weaving;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The weaving contract for a mode that fences the writers in a JVM the test starts (a {@code
 * -javaagent}): each expectation runs {@link ForkedExpectation} in a new JVM.
 */
public abstract class ForkedWeavingContract extends WeavingContract {
  /** How long one forked JVM may take. */
  private static final long TIMEOUT_SECONDS = 120;

  /** For subclasses. */
  protected ForkedWeavingContract() {}

  /**
   * @return the JDBC URL of the PostgreSQL the JVM's fences use, contract installed in {@code
   *     writer_fence}; never {@code null}
   */
  protected abstract String jdbcUrl();

  /**
   * @return a role owning that schema; never {@code null}
   */
  protected abstract String user();

  /**
   * @return the JVM options that put the mode in place (for example {@code -javaagent:...}), before
   *     the class path; never {@code null}
   */
  protected abstract List<String> jvmOptions();

  /**
   * @return the forked JVM's class path; by default the tests' own ({@link
   *     ForkedJvm#testClassPath()})
   */
  protected String classPath() {
    return ForkedJvm.testClassPath();
  }

  @Override
  protected final void verify(Expectation expectation) throws Exception {
    fork(jvmOptions(), classPath(), expectation.name(), jdbcUrl(), user());
  }

  /**
   * Runs {@link ForkedExpectation} in a new JVM, and fails unless it met the check.
   *
   * @param check what {@link ForkedExpectation} checks, its first argument
   */
  static void fork(
      List<String> jvmOptions, String classPath, String check, String jdbcUrl, String user)
      throws Exception {
    List<String> command = new ArrayList<>();
    command.add(ForkedJvm.javaBinary());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(classPath);
    command.add(ForkedExpectation.class.getName());
    command.add(check);
    command.add(jdbcUrl);
    command.add(user);
    File output = Files.createTempFile("writer-fence-weaving-", ".out").toFile();
    output.deleteOnExit();
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError(
          "the forked JVM did not finish within " + TIMEOUT_SECONDS + " s:\n" + read(output));
    }
    String out = read(output);
    assertThat(process.exitValue())
        .as("exit status of the JVM checking %s; its output:%n%s", check, out)
        .isZero();
    assertThat(out).contains(ForkedExpectation.PASSED);
  }

  private static String read(File file) throws IOException {
    return Files.readString(file.toPath(), StandardCharsets.UTF_8);
  }
}
