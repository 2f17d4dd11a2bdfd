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
              s.isFamily()));
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

  private static String stripDot(String prefix) {
    return prefix.endsWith(".") ? prefix.substring(0, prefix.length() - 1) : prefix;
  }

  /** A key of the catalog, or for a family the parent of its keys. */
  private record Known(ConfigurationPropertyName name, boolean family) {
    boolean accepts(ConfigurationPropertyName candidate) {
      return family ? name.isParentOf(candidate) : name.equals(candidate);
    }
  }
}
