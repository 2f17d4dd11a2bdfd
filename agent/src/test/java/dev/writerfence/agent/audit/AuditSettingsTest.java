package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentSettings;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class AuditSettingsTest {
  @Test
  void offByDefault() {
    assertThat(AuditSettings.from(settings()).mode()).isEqualTo(AuditMode.OFF);
    assertThat(new AuditFeature().enabled(settings())).isFalse();
  }

  @Test
  void badModeIsNamedWithTheAllowedValues() {
    assertThatThrownBy(() -> AuditSettings.from(settings("audit.mode", "warn")))
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageContaining("'warn'")
        .hasMessageContaining("off, log or enforce");
  }

  @Test
  void perClientFenceWinsOverTheGlobalOne() {
    AuditSettings audit =
        AuditSettings.from(
            settings(
                "audit.mode", "enforce",
                "audit.require-fence", "corpus",
                "audit.require-fence.aws-s3-v2", "uploads"));

    assertThat(audit.mode()).isEqualTo(AuditMode.ENFORCE);
    assertThat(audit.requiredFence("aws-s3-v2")).isEqualTo("uploads");
    assertThat(audit.requiredFence("gcs")).isEqualTo("corpus");
  }

  @Test
  void anyFenceWhenNoneIsRequired() {
    assertThat(AuditSettings.from(settings("audit.mode", "log")).requiredFence("aws-s3-v2"))
        .isNull();
  }

  @Test
  void pidInTheReportPathBecomesThisJvmsProcessId() {
    String pid = Long.toString(ProcessHandle.current().pid());

    AuditSettings audit = AuditSettings.from(settings("audit.report", "reports/audit-{pid}.json"));

    assertThat(audit.report())
        .contains(Path.of("reports", "audit-" + pid + ".json").toAbsolutePath());
    assertThat(AuditSettings.from(settings("audit.report", "audit.json")).report())
        .contains(Path.of("audit.json").toAbsolutePath());
  }

  @Test
  void badFenceNameIsNamed() {
    assertThatThrownBy(
            () -> AuditSettings.from(settings("audit.require-fence.aws-s3-v2", "bad\u0007name")))
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageContaining("audit.require-fence.aws-s3-v2");
  }

  private static AgentSettings settings(String... keysAndValues) {
    Properties system = new Properties();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      system.setProperty(AgentSettings.PREFIX + keysAndValues[i], keysAndValues[i + 1]);
    }
    return AgentSettings.load(null, system);
  }
}
