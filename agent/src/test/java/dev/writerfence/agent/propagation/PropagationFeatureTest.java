package dev.writerfence.agent.propagation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentSettings;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** When {@code agent.propagation} turns propagation on. */
class PropagationFeatureTest {

  private static AgentSettings settings(String... keyValues) {
    Properties p = new Properties();
    for (int i = 0; i < keyValues.length; i += 2) {
      p.setProperty("writer-fence." + keyValues[i], keyValues[i + 1]);
    }
    return AgentSettings.load(null, p);
  }

  @Test
  void onByDefaultWithTheAuditOrTheFence() {
    assertThat(new PropagationFeature().enabled(settings("audit.mode", "log"))).isTrue();
    assertThat(
            new PropagationFeature()
                .enabled(settings("datasource.url", "jdbc:postgresql://127.0.0.1:9/none")))
        .isTrue();
  }

  @Test
  void offWhenTheAgentDoesNothingElseOrWhenTurnedOff() {
    assertThat(new PropagationFeature().enabled(settings())).isFalse();
    assertThat(
            new PropagationFeature()
                .enabled(settings("audit.mode", "enforce", "agent.propagation", "false")))
        .isFalse();
  }

  @Test
  void aBadValueNamesTheKey() {
    assertThatThrownBy(
            () ->
                new PropagationFeature()
                    .enabled(settings("audit.mode", "log", "agent.propagation", "maybe")))
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageContaining("agent.propagation");
  }
}
