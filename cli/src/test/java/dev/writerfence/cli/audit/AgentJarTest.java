package dev.writerfence.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentJarTest {
  @TempDir Path dir;

  @Test
  void theBuildPutsTheAgentJarBesideTheCliClasses() throws Exception {
    Path jar = AgentJar.locate();

    assertThat(jar).endsWith(Path.of("target", "agent", "writer-fence-agent.jar")).isRegularFile();
    assertThat(Files.size(jar)).isGreaterThan(1_000_000); // the shaded jar, not the plain one
  }

  @Test
  void aMissingJarIsNamedWithHowToBuildIt() {
    Path missing = dir.resolve("no-agent.jar");
    String before = System.getProperty(AgentJar.PROPERTY);
    System.setProperty(AgentJar.PROPERTY, missing.toString());
    try {
      assertThatThrownBy(AgentJar::locate)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no agent jar at " + missing)
          .hasMessageContaining("mvn package -pl cli -am");
    } finally {
      if (before == null) {
        System.clearProperty(AgentJar.PROPERTY);
      } else {
        System.setProperty(AgentJar.PROPERTY, before);
      }
    }
  }
}
