package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The audit's settings.
 *
 * @param mode {@code audit.mode}
 * @param report {@code audit.report}: where the JSON report goes, {@value #PID} already replaced by
 *     this JVM's process id; empty for none
 * @param requiredFence {@code audit.require-fence}: the fence name every write must hold; empty for
 *     any name
 * @param requiredFencePerClient {@code audit.require-fence.<client id>}: overrides per client
 * @param map {@code audit.map}: whether fenced writes are recorded too, for the writer map
 * @param libraryPackages {@code audit.library-packages}: package prefixes of libraries that wrap
 *     storage clients, skipped for call sites
 */
public record AuditSettings(
    AuditMode mode,
    Optional<Path> report,
    Optional<String> requiredFence,
    Map<String, String> requiredFencePerClient,
    boolean map,
    List<String> libraryPackages) {
  /**
   * The placeholder in {@code audit.report} that becomes the JVM's process id, so that every JVM
   * started with one {@code JAVA_TOOL_OPTIONS} writes a report of its own instead of overwriting
   * the others' at exit.
   */
  public static final String PID = "{pid}";

  private static final Setting<String> PER_CLIENT = SettingsCatalog.AUDIT_REQUIRE_FENCE_PER_CLIENT;

  /**
   * @param settings the agent's settings
   * @return the audit's settings
   * @throws AgentConfigurationException when a value is bad, naming it and what is allowed
   */
  public static AuditSettings from(AgentSettings settings) {
    AuditMode mode =
        settings.get(SettingsCatalog.AUDIT_MODE).map(AuditMode::parse).orElse(AuditMode.OFF);
    Optional<Path> report =
        settings.get(SettingsCatalog.AUDIT_REPORT).map(AuditSettings::ownReport);
    Optional<String> required = settings.get(SettingsCatalog.AUDIT_REQUIRE_FENCE);
    Map<String, String> perClient = new TreeMap<>();
    for (Map.Entry<String, String> e : settings.asMap().entrySet()) {
      if (PER_CLIENT.matches(e.getKey()) && !e.getValue().isEmpty()) {
        perClient.put(
            e.getKey().substring(PER_CLIENT.familyPrefix().length()),
            fenceName(e.getKey(), e.getValue()));
      }
    }
    boolean map = settings.get(SettingsCatalog.AUDIT_MAP).orElse(false);
    List<String> wrappers = settings.get(SettingsCatalog.AUDIT_LIBRARY_PACKAGES).orElse(List.of());
    return new AuditSettings(mode, report, required, Map.copyOf(perClient), map, wrappers);
  }

  /**
   * @param client a client id
   * @return the fence name a write through that client must hold, or {@code null} for any
   */
  public String requiredFence(String client) {
    String perClient = requiredFencePerClient.get(client);
    return perClient != null ? perClient : requiredFence.orElse(null);
  }

  /** The report path with {@value #PID} replaced by this JVM's process id, made absolute. */
  private static Path ownReport(Path report) {
    String pid = Long.toString(ProcessHandle.current().pid());
    return Path.of(report.toString().replace(PID, pid)).toAbsolutePath();
  }

  private static String fenceName(String key, String value) {
    try {
      return PER_CLIENT.parse(key, value);
    } catch (IllegalArgumentException e) {
      throw AgentConfigurationException.of(e);
    }
  }
}
