package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.writerfence.WriterFence;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.DurationStyle;

/** The generated configuration metadata (IDE completion) lists every setting with its default. */
class ConfigurationMetadataTest {

  @Test
  void metadataListsTheSettingsOfDesignSection7WithDefaultsAndDescriptions() throws Exception {
    // The starter's own file, among those of every Spring Boot jar on the class path.
    String json = null;
    var files =
        getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json");
    while (files.hasMoreElements()) {
      try (InputStream in = files.nextElement().openStream()) {
        String candidate = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        if (candidate.contains("\"writer-fence.ttl\"")) {
          json = candidate;
        }
      }
    }
    assertThat(json).isNotNull();
    List<Map<String, Object>> all = JsonPath.read(json, "$.properties");
    List<Map<String, Object>> properties =
        all.stream().filter(p -> ((String) p.get("name")).startsWith("writer-fence.")).toList();
    Map<String, Object> defaults =
        properties.stream()
            .filter(p -> p.get("defaultValue") != null)
            .collect(Collectors.toMap(p -> (String) p.get("name"), p -> p.get("defaultValue")));
    assertThat(properties.stream().map(p -> (String) p.get("name")))
        .containsExactlyInAnyOrder(
            "writer-fence.enabled",
            "writer-fence.holder",
            "writer-fence.ttl",
            "writer-fence.renew-interval",
            "writer-fence.query-timeout",
            "writer-fence.backend",
            "writer-fence.advisory.pool-size",
            "writer-fence.retry.max-attempts",
            "writer-fence.retry.initial-interval",
            "writer-fence.retry.multiplier",
            "writer-fence.retry.max-interval",
            "writer-fence.schema.name",
            "writer-fence.schema.initialize",
            "writer-fence.datasource.url",
            "writer-fence.datasource.username",
            "writer-fence.datasource.password",
            // read by the -javaagent only; accepted so one set of -D properties serves both
            "writer-fence.fence-name",
            "writer-fence.fence.methods",
            "writer-fence.audit.mode",
            "writer-fence.audit.report",
            "writer-fence.audit.paths",
            "writer-fence.audit.require-fence");
    assertThat(defaults)
        .containsEntry("writer-fence.ttl", "30s")
        .containsEntry("writer-fence.query-timeout", "10s")
        .containsEntry("writer-fence.retry.max-attempts", 5)
        .containsEntry("writer-fence.retry.initial-interval", "200ms")
        .containsEntry("writer-fence.retry.max-interval", "5s")
        .containsEntry("writer-fence.schema.name", "writer_fence")
        .containsEntry("writer-fence.backend", "lease")
        .containsEntry("writer-fence.advisory.pool-size", AdvisoryLockStore.DEFAULT_POOL_SIZE);
    // The pool size's default is the core's too, written out by hand (the metadata processor does
    // not read another class's constant): the line above keeps them equal.
    // The TTL's default is the core's, written out by hand for the metadata: keep them equal.
    assertThat(DurationStyle.detectAndParse((String) defaults.get("writer-fence.ttl")))
        .isEqualTo(WriterFence.DEFAULT_TTL);
    assertThat(defaults).doesNotContainKey("writer-fence.renew-interval"); // a third of the TTL
    List<String> renewValues =
        JsonPath.read(json, "$.hints[?(@.name == 'writer-fence.renew-interval')].values[*].value");
    assertThat(renewValues).contains("off");
    assertThat(properties).allSatisfy(p -> assertThat((String) p.get("description")).isNotBlank());
    List<String> backendValues =
        JsonPath.read(json, "$.hints[?(@.name == 'writer-fence.backend')].values[*].value");
    assertThat(backendValues).containsExactly("lease", "advisory");
  }
}
