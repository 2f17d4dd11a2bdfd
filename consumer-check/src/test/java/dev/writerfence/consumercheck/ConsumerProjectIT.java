package dev.writerfence.consumercheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.writerfence.testing.EmbeddedDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Case C39: what {@code mvn deploy} publishes is enough on its own. Every published module is
 * deployed to a folder under target; then the consumer project in {@code src/it/consumer} is built
 * with an empty local repository that reaches writer-fence through that folder alone (everything
 * else from Maven Central) and runs a fenced call against a real PostgreSQL.
 */
class ConsumerProjectIT {
  private static final String PUBLISHED =
      "bom,annotations,bootstrap,core,test-support,aspectj,agent,spring-starter,shedlock";
  private static final String FENCE = "c39-consumer";
  private static final Pattern TOKEN = Pattern.compile("fenced call ran with fencing token (\\d+)");

  private final Path root = Path.of(System.getProperty("writer-fence.root")).normalize();
  private final Path work = root.resolve("consumer-check/target/consumer-check");
  private final String version = System.getProperty("writer-fence.version");

  @Test
  void C39_aConsumerBuildsAndRunsAFencedCallFromTheDeployedFolderAlone() throws Exception {
    assumeThat(System.getProperty("maven.settings").equals("offline=true"))
        .as("deploy and a fresh local repository need Maven Central; Maven runs offline")
        .isFalse();
    deleteRecursively(work);
    Path deployed = work.resolve("deployed");
    Path freshRepository = work.resolve("fresh-repository");
    Files.createDirectories(freshRepository);

    maven(
        root,
        work.resolve("deploy.log"),
        "deploy",
        // What this build compiled and tested is deployed as it is: no second compile or test.
        "-Dmaven.main.skip=true",
        "-Daspectj.skip=true",
        "-Dmaven.test.skip=true",
        "-Dspotless.check.skip=true",
        "-DaltDeploymentRepository=local-deploy::" + deployed.toUri(),
        "-pl",
        PUBLISHED,
        "-am");

    Path consumer = work.resolve("consumer");
    copyRecursively(root.resolve("consumer-check/src/it/consumer"), consumer);
    Path settings = work.resolve("settings.xml");
    Files.writeString(settings, settings(deployed));
    EmbeddedDatabase database = EmbeddedDatabase.get();
    String output =
        maven(
            consumer,
            work.resolve("consumer.log"),
            "-s",
            settings.toString(),
            "-Dmaven.repo.local=" + freshRepository,
            "-Dwriter-fence.version=" + version,
            "-Djdbc.url=" + database.jdbcUrl(),
            "-Djdbc.user=postgres",
            "-Dfence.name=" + FENCE,
            "package",
            "exec:java");

    Matcher token = TOKEN.matcher(output);
    assertThat(token.find()).as("the consumer's fenced call ran; its output:\n" + output).isTrue();
    try (Connection c = database.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT holder_label, fencing_token FROM writer_fence.lease_status"
                    + " WHERE fence_name = ?")) {
      s.setString(1, FENCE);
      try (ResultSet r = s.executeQuery()) {
        assertThat(r.next()).as("a lease row for " + FENCE).isTrue();
        assertThat(r.getString(1)).isEqualTo("consumer");
        assertThat(r.getLong(2)).isEqualTo(Long.parseLong(token.group(1)));
      }
    }

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

  /**
   * Maven's user settings for the consumer: Maven Central as usual, writer-fence from the folder.
   */
  private static String settings(Path deployed) {
    return """
        <settings>
          <profiles>
            <profile>
              <id>writer-fence-deployed</id>
              <repositories>
                <repository>
                  <id>writer-fence-deployed</id>
                  <url>%s</url>
                  <releases><enabled>true</enabled></releases>
                  <snapshots><enabled>true</enabled></snapshots>
                </repository>
              </repositories>
            </profile>
          </profiles>
          <activeProfiles>
            <activeProfile>writer-fence-deployed</activeProfile>
          </activeProfiles>
        </settings>
        """
        .formatted(deployed.toUri());
  }

  /**
   * Runs Maven in {@code dir}, its output to {@code log}.
   *
   * @return the output
   * @throws AssertionError when Maven fails or runs over 10 minutes, with the output's tail
   */
  private static String maven(Path dir, Path log, String... arguments) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("maven.home"), "bin", "mvn").toString());
    command.add("-B");
    command.add("-ntp");
    command.addAll(Arrays.asList(arguments));
    Files.createDirectories(log.getParent());
    Process maven =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean ended = maven.waitFor(10, TimeUnit.MINUTES);
    if (!ended) {
      maven.destroyForcibly().waitFor();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended && maven.exitValue() == 0)
        .as(
            "%s in %s %s; the end of %s:%n%s",
            command,
            dir,
            ended ? "exited " + maven.exitValue() : "ran over 10 minutes",
            log,
            output.substring(Math.max(0, output.length() - 6000)))
        .isTrue();
    return output;
  }

  private static void copyRecursively(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(target);
        } else {
          Files.copy(file, target);
        }
      }
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path file : (Iterable<Path>) files.sorted((a, b) -> b.compareTo(a))::iterator) {
        Files.delete(file);
      }
    }
  }
}
