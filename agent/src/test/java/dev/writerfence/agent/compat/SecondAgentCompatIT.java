package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.CompatApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The agent beside another Byte Buddy-based agent (unshaded {@code net.bytebuddy}) that transforms
 * the same class, attached before and after it.
 */
class SecondAgentCompatIT {
  private static Path app;
  private static Path otherAgent;

  @BeforeAll
  static void jars() throws IOException {
    app = FixtureJars.jar("legacy-app", Map.of(), CompatApp.class);
    otherAgent =
        FixtureJars.jar(
            "other-agent",
            Map.of("Premain-Class", OtherAgent.class.getName(), "Class-Path", "byte-buddy.jar"),
            OtherAgent.class);
    // Class-Path is resolved against the agent jar's own directory.
    Files.copy(FixtureJars.lib("byte-buddy.jar"), otherAgent.resolveSibling("byte-buddy.jar"));
  }

  @Test
  void bothAgentsTransformWhenWriterFenceComesFirst() {
    CompatRuns.Audit audit = CompatRuns.Audit.create();
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .withAgent(CompatRuns.bothFeatures(CompatApp.class, audit))
            .option("-javaagent:" + otherAgent)
            .classPath(app)
            .main(CompatApp.class, audit.volume().toString())
            .run();
    assertBothWorked(r, audit);
  }

  @Test
  void bothAgentsTransformWhenTheOtherComesFirst() {
    CompatRuns.Audit audit = CompatRuns.Audit.create();
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .option("-javaagent:" + otherAgent)
            .withAgent(CompatRuns.bothFeatures(CompatApp.class, audit))
            .classPath(app)
            .main(CompatApp.class, audit.volume().toString())
            .run();
    assertBothWorked(r, audit);
  }

  private static void assertBothWorked(AgentJvm.Result r, CompatRuns.Audit audit) {
    CompatRuns.assertFencedAndClean(r, audit);
    assertThat(r.stdout())
        .as(r.describe())
        .contains("other-agent installed", "greeting hello +other-agent");
  }
}
