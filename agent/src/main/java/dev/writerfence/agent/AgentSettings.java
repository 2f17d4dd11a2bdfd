package dev.writerfence.agent;

import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;

/**
 * The agent's settings, with the names of {@link SettingsCatalog}: from the properties file named
 * by the agent argument {@code config=FILE}, then from {@code -Dwriter-fence.*} system properties,
 * which win. Keys in the file may carry the {@code writer-fence.} prefix or not.
 */
public final class AgentSettings {
  /** The prefix of every system property the agent reads. */
  public static final String PREFIX = SettingsCatalog.PREFIX;

  private final Map<String, String> values;
  private final String source;

  private AgentSettings(Map<String, String> values, String source) {
    this.values = values;
    this.source = source;
  }

  /**
   * @param agentArgs the text after {@code =} in {@code -javaagent:writer-fence-agent.jar=...}:
   *     {@code null}, empty, or {@code config=FILE}
   * @param system the system properties
   * @return the settings
   * @throws AgentConfigurationException when the argument is not {@code config=FILE} or the file
   *     cannot be read
   */
  public static AgentSettings load(String agentArgs, Properties system) {
    Map<String, String> values = new TreeMap<>();
    StringBuilder source = new StringBuilder();
    if (agentArgs != null && !agentArgs.isBlank()) {
      String args = agentArgs.strip();
      if (!args.startsWith("config=") || args.length() == "config=".length()) {
        throw new AgentConfigurationException(
            "writer-fence agent: argument '"
                + args
                + "' is not allowed: use -javaagent:writer-fence-agent.jar=config=FILE (a"
                + " properties file), or -Dwriter-fence.* system properties");
      }
      Path file = Path.of(args.substring("config=".length()));
      Properties fromFile = new Properties();
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        fromFile.load(reader);
      } catch (IOException e) {
        throw new AgentConfigurationException(
            "writer-fence agent: cannot read the config file '"
                + file.toAbsolutePath()
                + "': "
                + e);
      }
      for (String key : fromFile.stringPropertyNames()) {
        String bare = key.startsWith(PREFIX) ? key.substring(PREFIX.length()) : key;
        values.put(bare, fromFile.getProperty(key).strip());
      }
      source.append(file.toAbsolutePath());
    }
    boolean fromSystem = false;
    for (String key : system.stringPropertyNames()) {
      if (key.startsWith(PREFIX)) {
        values.put(key.substring(PREFIX.length()), system.getProperty(key).strip());
        fromSystem = true;
      }
    }
    if (fromSystem) {
      source.append(source.length() == 0 ? "" : " and ").append("-D" + PREFIX + "*");
    }
    return new AgentSettings(values, source.length() == 0 ? "defaults" : source.toString());
  }

  /**
   * @param key a key without the prefix, for example {@code audit.mode}
   * @return its value, stripped; empty when not set or blank
   */
  public Optional<String> get(String key) {
    String value = values.get(key);
    return value == null || value.isEmpty() ? Optional.empty() : Optional.of(value);
  }

  /**
   * @return every key and value, sorted by key; never {@code null}
   */
  public Map<String, String> asMap() {
    return Map.copyOf(values);
  }

  /**
   * @return where the settings came from, for messages: the file, the system properties, or
   *     "defaults"
   */
  public String source() {
    return source;
  }

  /**
   * Refuses a key that no mode reads. Every key of {@link SettingsCatalog} passes, also those only
   * Spring or the process fence reads: one JVM may run the agent beside them on the same {@code
   * -Dwriter-fence.*} properties.
   *
   * @throws AgentConfigurationException naming the first unknown key and the known ones
   */
  public void rejectUnknown() {
    for (String key : values.keySet()) {
      if (!SettingsCatalog.isKnown(key)) {
        throw AgentConfigurationException.of(SettingsCatalog.unknown(key, source));
      }
    }
  }

  /**
   * @param setting a setting of the catalog
   * @param <T> what its values parse to
   * @return its parsed value; empty when not set or blank
   * @throws AgentConfigurationException naming the key, the value and what is allowed
   */
  public <T> Optional<T> get(Setting<T> setting) {
    try {
      return get(setting.key()).map(setting::parse);
    } catch (IllegalArgumentException e) {
      throw AgentConfigurationException.of(e);
    }
  }
}
