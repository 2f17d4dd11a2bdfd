package dev.writerfence.agent.compat;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.CompatApp;
import com.acme.legacy.OlderByteBuddyApp;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The agent with an older byte-buddy on the application's class path, which the application uses
 * itself: the agent's shaded copy and the application's never meet.
 */
class OlderByteBuddyCompatIT {
  @Test
  void applicationKeepsItsOwnOlderByteBuddy() {
    CompatRuns.Audit audit = CompatRuns.Audit.create();
    AgentJvm.Result r =
        AgentJvm.onThisJdk()
            .withAgent(CompatRuns.bothFeatures(CompatApp.class, audit))
            .classPath(
                FixtureJars.jar("legacy-app", Map.of(), OlderByteBuddyApp.class, CompatApp.class),
                FixtureJars.lib("byte-buddy-older.jar"))
            .main(OlderByteBuddyApp.class, audit.volume().toString())
            .run();
    CompatRuns.assertFencedAndClean(r, audit);
    assertThat(r.stdout())
        .as(r.describe())
        .contains("made made by the application's byte-buddy")
        .anyMatch(l -> l.startsWith("app-byte-buddy ") && l.endsWith("/byte-buddy-older.jar"));
  }
}
