package dev.writerfence.spring.boot;

import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * The {@code writer-fence.*} keys of an environment judged by the core's {@link SettingsCatalog},
 * in Spring's relaxed form ({@code writer-fence.retry.maxAttempts} is {@code retry.max-attempts}).
 * A family with known members ({@code audit.require-fence.<client>}) accepts only those: {@code
 * writer-fence.audit.require-fence.gsc} is unknown, as it is to the agent and the process fence.
 */
final class CatalogKeys {
  private static final ConfigurationPropertyName ROOT =
      ConfigurationPropertyName.of(WriterFenceProperties.PREFIX);

  private CatalogKeys() {}

  /**
   * @param environment the application's environment
   * @return the {@code writer-fence.*} names, as written, that no setting of the catalog is; sorted
   */
  static List<String> unknownKeys(Environment environment) {
    List<Known> known = new ArrayList<>();
    for (Setting<?> s : SettingsCatalog.all()) {
      known.add(
          new Known(
              ConfigurationPropertyName.of(
                  WriterFenceProperties.PREFIX + "." + stripDot(s.familyPrefix())),
              s.isFamily(),
              s.members().stream().map(CatalogKeys::uniform).toList()));
    }
    TreeSet<String> unknown = new TreeSet<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)) {
        continue; // names cannot be listed (a random value source): nothing to judge
      }
      iterable.stream()
          .filter(ROOT::isAncestorOf)
          .filter(name -> known.stream().noneMatch(k -> k.accepts(name)))
          .forEach(name -> unknown.add(name.toString()));
    }
    return List.copyOf(unknown);
  }

  /**
   * @param name a {@code writer-fence.*} name as {@link #unknownKeys} gives it
   * @return why the catalog refuses it, naming the known members when it is under a family with
   *     members, else every known key (the core's words, as the agent and the process fence say)
   */
  static String whyUnknown(String name) {
    String prefix = WriterFenceProperties.PREFIX + ".";
    return SettingsCatalog.whyUnknown(
        name.startsWith(prefix) ? name.substring(prefix.length()) : name);
  }

  /** A member in Spring's uniform form (lower case, no dashes), as names are compared. */
  private static String uniform(String member) {
    return ConfigurationPropertyName.of(member)
        .getLastElement(ConfigurationPropertyName.Form.UNIFORM);
  }

  private static String stripDot(String prefix) {
    return prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
  }

  /**
   * A key of the catalog, or for a family the parent of its keys and the members it accepts (empty:
   * any), in the uniform form.
   */
  private record Known(ConfigurationPropertyName name, boolean family, List<String> members) {
    boolean accepts(ConfigurationPropertyName candidate) {
      if (!family) {
        return name.equals(candidate);
      }
      return name.isParentOf(candidate)
          && (members.isEmpty()
              || members.contains(
                  candidate.getLastElement(ConfigurationPropertyName.Form.UNIFORM)));
    }
  }
}
