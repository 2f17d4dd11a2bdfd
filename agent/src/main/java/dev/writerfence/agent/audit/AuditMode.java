package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.internal.config.SettingsCatalog;
import java.util.Locale;

/** {@code writer-fence.audit.mode}: what happens to a storage write made while no fence is held. */
public enum AuditMode {
  /** Not audited; no storage client is instrumented. */
  OFF,
  /** Reported once per call site, in the JSON report and the summary at exit. */
  LOG,
  /** Reported as in {@link #LOG}, and refused with {@code UnfencedWriteException}. */
  ENFORCE;

  /**
   * @param value the setting's value, case-insensitive
   * @return the mode
   * @throws AgentConfigurationException naming the value and the allowed ones
   */
  public static AuditMode parse(String value) {
    try {
      // The catalog holds the words; each is the name of a constant here (AuditSettingsTest).
      return valueOf(SettingsCatalog.AUDIT_MODE.parse(value).toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw AgentConfigurationException.of(e);
    }
  }
}
