package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar as the launcher runs it ({@code java -jar target/writer-fence-cli.jar}), after
 * {@code package}: its manifest names the version and the class path.
 */
class CliJarIT {
  private static final Path JAR = Path.of(System.getProperty("writer-fence.cli.jar"));

  @Test
  void versionIsTheProjectVersionFromTheManifest() throws Exception {
    String version = System.getProperty("writer-fence.version");

    Result result = java("--version");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output().strip()).isEqualTo("writer-fence " + version);
  }

  @Test
  void badInputFromThePackagedJarIsOneLineAndExitStatus2() throws Exception {
    Result result = java("status");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.output().lines())
        .containsExactly(
            "writer-fence: missing required option: '--jdbc-url=URL'",
            "Try './writer-fence status --help'");
  }

  private record Result(int exitCode, String output) {}

  private static Result java(String... args) throws IOException, InterruptedException {
    assertThat(JAR).isRegularFile();
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Path output = Files.createTempFile("writer-fence-cli-it", ".txt");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("java -jar did not exit within 60 s: " + command);
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
