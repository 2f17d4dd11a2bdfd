package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.BootApp;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent beside a Spring Boot executable jar: the application's classes and its own writer-fence
 * core load from nested jars through Boot's class loader, and still share the one held-fence stack
 * the agent placed in the bootstrap class loader.
 */
class FatJarCompatIT {
  @Test
  void bootJarSharesTheHeldFenceStackWithTheAgent() {
    Path fat =
        FixtureJars.bootJar(
            FixtureJars.jar("boot-app-plain", Map.of(), BootApp.class), BootApp.class);
    CompatRuns.Audit audit = CompatRuns.Audit.create();
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .withAgent(CompatRuns.bothFeatures(BootApp.class, audit))
            .jar(
                fat,
                EmbeddedDatabase.get().jdbcUrl(),
                FenceNames.random("boot"),
                audit.volume().toString())
            .run();
    assertThat(r.exitStatus()).as(r.describe()).isZero();
    assertThat(r.stdout())
        .as(r.describe())
        .contains(
            "app-loader org.springframework.boot.loader.launch.LaunchedClassLoader",
            "stack-loader bootstrap",
            "core-held true",
            "inside-held true",
            "after-held false")
        .last()
        .isEqualTo("done");
    CompatRuns.assertNoAgentTrouble(r);
    // The write in the application's own hold is fenced to the agent's audit too.
    audit.assertOnlyOutsideIsUnfenced(r);
  }
}
