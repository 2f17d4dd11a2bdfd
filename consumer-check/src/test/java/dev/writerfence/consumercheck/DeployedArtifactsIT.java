package dev.writerfence.consumercheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What {@code mvn deploy} wrote is what docs/releasing.md lists (which build-checks holds to the
 * POMs): those artifacts and no other, no test jar, and one agent jar, the {@code javaagent}
 * classifier the README gives.
 */
class DeployedArtifactsIT {
  /** A row of the table under "What is published": its first cell opens with the artifactId. */
  private static final Pattern ROW = Pattern.compile("(?m)^\\| `(writer-fence-[a-z0-9-]+)`");

  @Test
  void theDeployHoldsTheDocumentedArtifactsAndNoTestJar() throws Exception {
    assumeThat(PublishedArtifacts.offline())
        .as("deploy needs Maven Central; Maven runs offline")
        .isFalse();
    Path ours = PublishedArtifacts.deployed().resolve("dev/writerfence");

    assertThat(children(ours)).as("artifacts deployed").isEqualTo(documented());
    try (Stream<Path> files = Files.walk(ours)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .as("files deployed")
          .noneMatch(name -> name.endsWith("-tests.jar"))
          .noneMatch(name -> name.contains("writer-fence-agent-build"));
    }
  }

  @Test
  void theAgentIsDeployedAsOneJarUnderTheJavaagentClassifier() throws Exception {
    assumeThat(PublishedArtifacts.offline())
        .as("deploy needs Maven Central; Maven runs offline")
        .isFalse();
    Path agent =
        PublishedArtifacts.deployed()
            .resolve("dev/writerfence/writer-fence-agent")
            .resolve(PublishedArtifacts.VERSION);
    List<String> jars;
    try (Stream<Path> files = Files.list(agent)) {
      jars =
          files
              .map(p -> p.getFileName().toString())
              .filter(name -> name.endsWith(".jar"))
              .sorted()
              .toList();
    }

    assertThat(jars)
        .as("the agent's jars in %s", agent)
        .hasSize(3)
        .anyMatch(name -> name.endsWith("-javaagent.jar"))
        .anyMatch(name -> name.endsWith("-sources.jar"))
        .anyMatch(name -> name.endsWith("-javadoc.jar"));
  }

  private static Set<String> documented() throws IOException {
    String text = Files.readString(PublishedArtifacts.ROOT.resolve("docs/releasing.md"));
    int start = text.indexOf("## What is published");
    int end = text.indexOf("\n## ", start + 1);
    Matcher row = ROW.matcher(text.substring(start, end < 0 ? text.length() : end));
    Set<String> artifacts = new TreeSet<>();
    while (row.find()) {
      artifacts.add(row.group(1));
    }
    return artifacts;
  }

  private static Set<String> children(Path folder) throws IOException {
    try (Stream<Path> children = Files.list(folder)) {
      return children
          .filter(Files::isDirectory)
          .map(p -> p.getFileName().toString())
          .collect(Collectors.toCollection(TreeSet::new));
    }
  }
}
