package dev.writerfence.consumercheck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The published modules deployed to a folder under target, once per test JVM, and the process and
 * file helpers the consumer ITs share.
 */
final class PublishedArtifacts {
  /** The published modules' folders, comma-separated (consumer-check/pom.xml). */
  private static final String PUBLISHED = System.getProperty("consumer-check.published");

  static final Path ROOT = Path.of(System.getProperty("writer-fence.root")).normalize();
  static final Path WORK = ROOT.resolve("consumer-check/target/consumer-check");
  static final String VERSION = System.getProperty("writer-fence.version");

  private static final Pattern TOKEN = Pattern.compile("fenced call ran with fencing token (\\d+)");

  private static Path deployed;

  private PublishedArtifacts() {}

  /** Whether this Maven runs offline (deploy and fresh consumers need Maven Central then). */
  static boolean offline() {
    return System.getProperty("maven.settings").equals("offline=true");
  }

  /**
   * Deploys every published module to {@code WORK/deployed} on the first call (clearing {@code
   * WORK} before), and returns that folder on every call.
   */
  static synchronized Path deployed() throws Exception {
    if (deployed == null) {
      deleteRecursively(WORK);
      Path folder = WORK.resolve("deployed");
      run(
          ROOT,
          WORK.resolve("deploy.log"),
          mavenCommand(
              "deploy",
              // What this build compiled and tested is deployed as it is: no second compile or
              // test.
              "-Dmaven.main.skip=true",
              "-Daspectj.skip=true",
              "-Dmaven.test.skip=true",
              "-Dspotless.check.skip=true",
              "-DaltDeploymentRepository=local-deploy::" + folder.toUri(),
              "-Dmaven.repo.local=" + System.getProperty("consumer-check.local-repository"),
              "-pl",
              PUBLISHED,
              "-am"));
      deployed = folder;
    }
    return deployed;
  }

  /**
   * Asserts that a consumer's {@code FencedUpload} ran: its {@code output} names the fencing token,
   * and {@code fence}'s lease row holds that token under the label {@code consumer}, shown as
   * {@code consumer@host:pid}.
   */
  static void assertFencedCallRan(EmbeddedDatabase database, String fence, String output)
      throws SQLException {
    Matcher token = TOKEN.matcher(output);
    assertThat(token.find()).as("the consumer's fenced call ran; its output:\n" + output).isTrue();
    try (Connection c = database.dataSource().getConnection();
        PreparedStatement s =
            c.prepareStatement(
                "SELECT holder_label, fencing_token FROM writer_fence.lease_status"
                    + " WHERE fence_name = ?")) {
      s.setString(1, fence);
      try (ResultSet r = s.executeQuery()) {
        assertThat(r.next()).as("a lease row for " + fence).isTrue();
        assertThat(r.getString(1)).matches("consumer@[^:]+:\\d+");
        assertThat(r.getLong(2)).isEqualTo(Long.parseLong(token.group(1)));
      }
    }
  }

  /** Maven's user settings for a consumer: Maven Central as usual, writer-fence from the folder. */
  static String settings(Path deployed) {
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

  /** {@code mvn -B -ntp} of the Maven that runs this build, then {@code arguments}. */
  static List<String> mavenCommand(String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("maven.home"), "bin", "mvn").toString());
    command.add("-B");
    command.add("-ntp");
    command.addAll(Arrays.asList(arguments));
    return command;
  }

  /**
   * Runs {@code command} in {@code dir}, its output to {@code log}.
   *
   * @return the output
   * @throws AssertionError when the command fails or runs over 10 minutes, with the output's tail
   */
  static String run(Path dir, Path log, List<String> command) throws Exception {
    Files.createDirectories(log.getParent());
    Process process =
        new ProcessBuilder(command)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean ended = process.waitFor(10, TimeUnit.MINUTES);
    if (!ended) {
      process.destroyForcibly().waitFor();
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(ended && process.exitValue() == 0)
        .as(
            "%s in %s %s; the end of %s:%n%s",
            command,
            dir,
            ended ? "exited " + process.exitValue() : "ran over 10 minutes",
            log,
            output.substring(Math.max(0, output.length() - 6000)))
        .isTrue();
    return output;
  }

  static void copyRecursively(Path from, Path to) throws IOException {
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

  static void deleteRecursively(Path dir) throws IOException {
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
