package dev.writerfence.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.agent.audit.s3v2.AwsS3V2Audit;
import dev.writerfence.agent.fence.FenceFeature;
import dev.writerfence.config.WriterFenceSettings;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The agent's parsers and core's, in one process, on the keys of every mode at once: none refuses a
 * key another mode reads, each turns on what the settings ask for.
 */
class SettingsCatalogAgreementTest {

  /** Every setting of the catalog with its example value, as {@code -Dwriter-fence.*}. */
  private static Properties everySetting() {
    Properties p = new Properties();
    for (Setting<?> s : SettingsCatalog.all()) {
      String key = s.isFamily() ? s.familyPrefix() + AwsS3V2Audit.ID : s.key();
      p.setProperty(SettingsCatalog.PREFIX + key, s.example());
    }
    return p;
  }

  @Test
  void theAgentAndTheProcessFenceAcceptEveryKeyOfEveryMode() {
    Properties system = everySetting();
    AgentSettings settings = AgentSettings.load(null, system);

    assertThatCode(settings::rejectUnknown).doesNotThrowAnyException();
    assertThat(new FenceFeature().enabled(settings)).isTrue();
    assertThat(new AuditFeature().enabled(settings)).isTrue();
    AuditSettings audit = AuditSettings.from(settings);
    assertThat(audit.mode()).isEqualTo(AuditMode.LOG);
    assertThat(audit.requiredFence(AwsS3V2Audit.ID)).isEqualTo("corpus");
    // The process fence (the AspectJ aspect's, in the same JVM) reads the same properties.
    assertThatCode(() -> WriterFenceSettings.fromProperties(system).check())
        .doesNotThrowAnyException();
  }

  @Test
  void aKeyNoModeReadsStopsTheAgentNamingIt() {
    Properties system = everySetting();
    system.setProperty("writer-fence.audit.modes", "log");

    assertThatThrownBy(() -> AgentSettings.load(null, system).rejectUnknown())
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageStartingWith("writer-fence agent: unknown setting 'audit.modes'")
        .hasMessageContaining("audit.mode, audit.report");
  }

  @Test
  void theAuditModesAreTheCatalogsWords() {
    assertThat(Arrays.stream(AuditMode.values()).map(m -> m.name().toLowerCase(Locale.ROOT)))
        .containsExactlyElementsOf(SettingsCatalog.AUDIT_MODE.choices());
  }

  @Test
  void everyAuditedClientIsNamedWhereThePerClientKeyIsDefined() {
    for (ClientAudit client : ClientAudits.all()) {
      assertThat(SettingsCatalog.AUDIT_REQUIRE_FENCE_PER_CLIENT.meaning()).contains(client.id());
    }
  }

  @Test
  void theRegisteredAuditsAreTheCatalogsClientsInOrder() {
    assertThat(ClientAudits.all())
        .extracting(ClientAudit::id)
        .containsExactlyElementsOf(SettingsCatalog.AUDIT_CLIENTS);
  }

  @Test
  void anUnknownClientOfRequireFenceStopsTheAgentNamingTheKnownOnes() {
    Properties system = everySetting();
    system.setProperty("writer-fence.audit.require-fence.gsc", "corpus");

    assertThatThrownBy(() -> AgentSettings.load(null, system).rejectUnknown())
        .isInstanceOf(AgentConfigurationException.class)
        .hasMessageStartingWith("writer-fence agent: unknown setting 'audit.require-fence.gsc'")
        .hasMessageContaining("'gsc' is no known client")
        .hasMessageContaining("known clients: " + String.join(", ", SettingsCatalog.AUDIT_CLIENTS));
  }

  @Test
  void multipartUploadsAreTheS3ClientsOwnKnowledge() {
    for (ClientAudit client : ClientAudits.all()) {
      boolean s3 = client.id().startsWith("aws-s3-");
      assertThat(client.multipart() == MultipartUploads.NONE).as(client.id()).isEqualTo(!s3);
    }
    assertThat(new AwsS3V2Audit().multipart().starts()).containsExactly("createMultipartUpload");
    assertThat(new dev.writerfence.agent.audit.s3v1.AwsS3V1Audit().multipart().starts())
        .containsExactly("initiateMultipartUpload");
  }
}
