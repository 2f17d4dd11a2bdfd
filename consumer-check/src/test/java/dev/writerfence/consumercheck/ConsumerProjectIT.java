package dev.writerfence.consumercheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.writerfence.testing.EmbeddedDatabase;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Case C39: what {@code mvn deploy} publishes is enough on its own. Every published module is
 * deployed to a folder under target; then the consumer project in {@code src/it/consumer} is built
 * with an empty local repository that reaches writer-fence through that folder alone (everything
 * else from Maven Central) and runs a fenced call against a real PostgreSQL.
 */
class ConsumerProjectIT {
  private static final String FENCE = "c39-consumer";

  private final Path root = PublishedArtifacts.ROOT;
  private final Path work = PublishedArtifacts.WORK.resolve("maven");
  private final String version = PublishedArtifacts.VERSION;

  @Test
  void C39_aConsumerBuildsAndRunsAFencedCallFromTheDeployedFolderAlone() throws Exception {
    assumeThat(PublishedArtifacts.offline())
        .as("deploy and a fresh local repository need Maven Central; Maven runs offline")
        .isFalse();
    Path deployed = PublishedArtifacts.deployed();
    Path freshRepository = work.resolve("fresh-repository");
    Files.createDirectories(freshRepository);

    Path consumer = work.resolve("consumer");
    PublishedArtifacts.copyRecursively(root.resolve("consumer-check/src/it/consumer"), consumer);
    Path settings = work.resolve("settings.xml");
    Files.writeString(settings, PublishedArtifacts.settings(deployed));
    EmbeddedDatabase database = EmbeddedDatabase.get();
    String output =
        PublishedArtifacts.run(
            consumer,
            work.resolve("consumer.log"),
            PublishedArtifacts.mavenCommand(
                "-s",
                settings.toString(),
                "-Dmaven.repo.local=" + freshRepository,
                "-Dwriter-fence.version=" + version,
                "-Djdbc.url=" + database.jdbcUrl(),
                "-Djdbc.user=postgres",
                "-Dfence.name=" + FENCE,
                "package",
                "exec:java"));

    PublishedArtifacts.assertFencedCallRan(database, FENCE, output);

    Path ours = freshRepository.resolve("dev/writerfence");
    for (String artifact :
        List.of(
            "writer-fence-bom",
            "writer-fence-aspectj",
            "writer-fence-core",
            "writer-fence-annotations",
            "writer-fence-bootstrap",
            "writer-fence-agent")) {
      Path origin = ours.resolve(artifact).resolve(version).resolve("_remote.repositories");
      assertThat(origin).as(artifact + " came from the deployed folder").exists();
      assertThat(Files.readString(origin)).contains(">writer-fence-deployed=");
    }
    assertThat(ours.resolve("writer-fence-parent"))
        .as("no published POM names the parent")
        .doesNotExist();
    assertThat(freshRepository.resolve("net/bytebuddy"))
        .as("the agent is published with no dependencies (Byte Buddy is shaded into it)")
        .doesNotExist();
    for (String bom : System.getProperty("consumer-check.test-boms").split(",")) {
      String[] gav = bom.split(":");
      Path folder =
          freshRepository.resolve(gav[0].replace('.', '/')).resolve(gav[1]).resolve(gav[2]);
      assertThat(folder)
          .as("the parent's test-only BOM " + bom + " reached the consumer")
          .doesNotExist();
    }
  }
}
