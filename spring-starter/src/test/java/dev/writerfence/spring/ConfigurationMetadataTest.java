package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;

/**
 * The starter's configuration metadata (IDE completion; generated from {@code
 * WriterFenceProperties} plus {@code additional-spring-configuration-metadata.json}) is the core's
 * settings catalog: the same keys, defaults and words. A setting added to either alone fails here.
 */
class ConfigurationMetadataTest {

  @Test
  void theMetadataListsEverySettingOfTheCatalogWithItsDefault() throws Exception {
    String json = metadata();
    List<Map<String, Object>> all = JsonPath.read(json, "$.properties");
    Map<String, Map<String, Object>> properties =
        all.stream()
            .filter(p -> ((String) p.get("name")).startsWith(SettingsCatalog.PREFIX))
            .collect(Collectors.toMap(p -> (String) p.get("name"), Function.identity()));

    // A family (audit.require-fence.<client>) has no one name to list.
    List<String> catalog =
        SettingsCatalog.all().stream().filter(s -> !s.isFamily()).map(Setting::property).toList();
    assertThat(properties.keySet()).containsExactlyInAnyOrderElementsOf(catalog);

    for (Setting<?> s : SettingsCatalog.all()) {
      if (s.isFamily()) {
        continue;
      }
      Map<String, Object> p = properties.get(s.property());
      assertThat((String) p.get("description")).as(s.key()).isNotBlank();
      Object metadataDefault = p.get("defaultValue");
      if (s.defaultValue().isEmpty()) {
        assertThat(metadataDefault).as("%s has no fixed default", s.key()).isNull();
      } else {
        assertThat(metadataDefault).as("%s's default", s.key()).isNotNull();
        assertThat(sameValue(s, metadataDefault.toString()))
            .as("%s: metadata default %s, catalog %s", s.key(), metadataDefault, s.defaultValue())
            .isTrue();
      }
      if (s.kind() == Setting.Kind.CHOICE) {
        List<String> hinted =
            JsonPath.read(json, "$.hints[?(@.name == '" + s.property() + "')].values[*].value");
        assertThat(hinted).as(s.key()).containsExactlyElementsOf(s.choices());
      }
    }
    List<String> renewValues =
        JsonPath.read(json, "$.hints[?(@.name == 'writer-fence.renew-interval')].values[*].value");
    assertThat(renewValues).contains("off");
  }

  /** Spring writes durations its own way ({@code 10s}, {@code PT10S}) and numbers as numbers. */
  private static boolean sameValue(Setting<?> s, String metadataDefault) {
    if (s.kind() == Setting.Kind.DURATION) {
      return DurationStyle.detectAndParse(metadataDefault).equals(s.parsedDefault().orElseThrow());
    }
    return s.parse(metadataDefault).equals(s.parsedDefault().orElseThrow());
  }

  /** The starter's own file, among those of every Spring Boot jar on the class path. */
  private String metadata() throws Exception {
    var files =
        getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json");
    while (files.hasMoreElements()) {
      try (InputStream in = files.nextElement().openStream()) {
        String candidate = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (candidate.contains("\"writer-fence.ttl\"")) {
          return candidate;
        }
      }
    }
    throw new AssertionError(
        "no META-INF/spring-configuration-metadata.json with writer-fence.ttl");
  }
}
