package dev.writerfence.consumercheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.writerfence.testing.EmbeddedDatabase;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Case C39 for Gradle, as far as Debian's Gradle 4.4 allows: the Groovy DSL build in {@code
 * src/it/gradle-consumer} resolves writer-fence-core from the folder {@code mvn deploy} wrote
 * (everything else from Maven Central) with an empty Gradle user home, compiles the Maven
 * consumer's class and runs its fenced call against a real PostgreSQL.
 */
class GradleConsumerIT {
  private static final String FENCE = "c39-gradle-consumer";
  private static final Pattern JAR = Pattern.compile("writer-fence jar: (.+)");

  private final Path work = PublishedArtifacts.WORK.resolve("gradle");

  @Test
  void C39_aGradleConsumerBuildsAndRunsAFencedCallFromTheDeployedFolder() throws Exception {
    assumeThat(PublishedArtifacts.offline())
        .as("deploy and a fresh Gradle user home need Maven Central; Maven runs offline")
        .isFalse();
    Path gradle = gradleOrSkip();
    Path deployed = PublishedArtifacts.deployed();
    Path userHome = work.resolve("gradle-user-home");
    Files.createDirectories(userHome);
    Path sources = PublishedArtifacts.ROOT.resolve("consumer-check/src/it");
    PublishedArtifacts.copyRecursively(sources.resolve("consumer"), work.resolve("consumer"));
    Path consumer = work.resolve("gradle-consumer");
    PublishedArtifacts.copyRecursively(sources.resolve("gradle-consumer"), consumer);
    EmbeddedDatabase database = EmbeddedDatabase.get();

    String output =
        PublishedArtifacts.run(
            consumer,
            work.resolve("gradle-consumer.log"),
            List.of(
                gradle.toString(),
                "--no-daemon",
                "--console=plain",
                "--gradle-user-home=" + userHome,
                "-PwriterFenceRepository=" + deployed,
                "-PwriterFenceVersion=" + PublishedArtifacts.VERSION,
                "-Pjdbc.url=" + database.jdbcUrl(),
                "-Pjdbc.user=postgres",
                "-Pfence.name=" + FENCE,
                "build",
                "writerFenceJars",
                "run"));

    PublishedArtifacts.assertFencedCallRan(database, FENCE, output);

    List<String> jars = JAR.matcher(output).results().map(m -> m.group(1).strip()).toList();
    assertThat(jars)
        .as("writer-fence jars on the consumer's run-time class path")
        .anyMatch(path -> path.contains("writer-fence-core-"))
        .anyMatch(path -> path.contains("writer-fence-annotations-"))
        .anyMatch(path -> path.contains("writer-fence-bootstrap-"))
        .allSatisfy(
            path ->
                assertThat(Path.of(path))
                    .as("resolved from the deployed folder")
                    .startsWith(deployed));
    assertThat(userHome.resolve("caches/modules-2/files-2.1/org.postgresql"))
        .as("pgjdbc came from Maven Central into the fresh Gradle user home")
        .isDirectory();
    assertThat(userHome.resolve("caches/modules-2/files-2.1/dev.writerfence"))
        .as("writer-fence came from the deployed folder, not from a remote repository")
        .doesNotExist();
  }

  /**
   * {@code gradle} on the PATH; skips the test without it, or fails it under {@code CI=true} (CI
   * must run it).
   */
  private static Path gradleOrSkip() {
    String path = System.getenv("PATH");
    for (String dir : path == null ? new String[0] : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, "gradle");
      if (Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    String message =
        "gradle is not on the PATH: the Gradle consumer check needs Debian's Gradle 4.4"
            + " (apt-get install gradle), which .ci/run installs";
    if ("true".equals(System.getenv("CI"))) {
      throw new AssertionError(message + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.abort(message + "; skipped");
    throw new AssertionError("unreachable");
  }
}
