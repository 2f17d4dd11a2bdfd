package dev.writerfence.agent.audit;

import dev.writerfence.agent.AgentConfigurationException;
import dev.writerfence.agent.AgentSettings;
import dev.writerfence.spi.FenceArguments;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The audit's settings.
 *
 * @param mode {@code audit.mode}
 * @param report {@code audit.report}: where the JSON report goes; empty for none
 * @param requiredFence {@code audit.require-fence}: the fence name every write must hold; empty for
 *     any name
 * @param requiredFencePerClient {@code audit.require-fence.<client id>}: overrides per client
 */
public record AuditSettings(
    AuditMode mode,
    Optional<Path> report,
    Optional<String> requiredFence,
    Map<String, String> requiredFencePerClient) {
  /** The keys the audit reads ({@code audit.paths} belongs to the file-write instrumentation). */
  public static final Set<String> KEYS =
      Set.of(
          "audit.mode",
          "audit.report",
          "audit.require-fence",
          "audit.require-fence.*",
          "audit.paths");

  private static final String PER_CLIENT = "audit.require-fence.";

  /**
   * @param settings the agent's settings
   * @return the audit's settings
   * @throws AgentConfigurationException when a value is bad, naming it and what is allowed
   */
  public static AuditSettings from(AgentSettings settings) {
    AuditMode mode = settings.get("audit.mode").map(AuditMode::parse).orElse(AuditMode.OFF);
    Optional<Path> report = settings.get("audit.report").map(AuditSettings::path);
    Optional<String> required =
        settings.get("audit.require-fence").map(v -> fenceName("audit.require-fence", v));
    Map<String, String> perClient = new TreeMap<>();
    for (Map.Entry<String, String> e : settings.asMap().entrySet()) {
      if (e.getKey().startsWith(PER_CLIENT) && !e.getValue().isEmpty()) {
        perClient.put(
            e.getKey().substring(PER_CLIENT.length()), fenceName(e.getKey(), e.getValue()));
      }
    }
    return new AuditSettings(mode, report, required, Map.copyOf(perClient));
  }

  /**
   * @param client a client id
   * @return the fence name a write through that client must hold, or {@code null} for any
   */
  public String requiredFence(String client) {
    String perClient = requiredFencePerClient.get(client);
    return perClient != null ? perClient : requiredFence.orElse(null);
  }

  private static Path path(String value) {
    try {
      return Path.of(value).toAbsolutePath();
    } catch (InvalidPathException e) {
      throw new AgentConfigurationException(
          "writer-fence agent: audit.report '" + value + "' is not a file path: " + e.getReason());
    }
  }

  private static String fenceName(String key, String value) {
    try {
      return FenceArguments.fenceName(value);
    } catch (IllegalArgumentException e) {
      throw new AgentConfigurationException("writer-fence agent: " + key + ": " + e.getMessage());
    }
  }
}
