package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.acme.legacy.CompatApp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The agent on a plain class path, on Java 17 and on Java 25. */
class JdkCompatIT {
  private static Path app;

  @BeforeAll
  static void appJar() {
    app = FixtureJars.jar("legacy-app", Map.of(), CompatApp.class);
  }

  @Test
  void fencesAndStartsCleanlyOnJava17() {
    CompatRuns.Audit audit = CompatRuns.Audit.create();
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .withAgent(CompatRuns.bothFeatures(CompatApp.class, audit))
            .classPath(app)
            .main(CompatApp.class, audit.volume().toString())
            .run();
    CompatRuns.assertFencedAndClean(r, audit);
    assertThat(r.stdout()).as(r.describe()).contains("java 17", "class-file-bridge false");
  }

  @Test
  void fencesAndStartsCleanlyOnJava25() {
    assumeTrue(
        Files.isExecutable(AgentJvm.JAVA_25),
        "Java 25 is not installed at " + AgentJvm.JAVA_25 + "; this run needs it");
    CompatRuns.Audit audit = CompatRuns.Audit.create();
    AgentJvm.Result r =
        AgentJvm.on(AgentJvm.JAVA_25)
            .withAgent(CompatRuns.bothFeatures(CompatApp.class, audit))
            .classPath(app)
            .main(CompatApp.class, audit.volume().toString())
            .run();
    CompatRuns.assertFencedAndClean(r, audit);
    // The relocated multi-release tree is what Java 25 loads Byte Buddy's bridge from.
    assertThat(r.stdout()).as(r.describe()).contains("java 25", "class-file-bridge true");
  }
}
