package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The starter's {@code additional-spring-configuration-metadata.json} lists every key of the core's
 * settings catalog, rendered from it: name, type, default and description. The Spring Boot
 * configuration processor merges it into the generated metadata, where it gives the properties
 * {@code WriterFenceProperties} inherits from core (whose Javadoc the processor cannot read) their
 * descriptions and defaults, and lists the keys only other modes read. A setting changed in the
 * catalog alone fails here; {@code -Dmetadata.write=true} writes the rendered file instead. Its
 * {@code hints} are written by hand (checked by {@link ConfigurationMetadataTest}).
 */
class AdditionalMetadataTest {
  private static final Path FILE =
      Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theAdditionalMetadataIsTheCatalogRendered() throws Exception {
    ObjectNode file = (ObjectNode) JSON.readTree(Files.readString(FILE, StandardCharsets.UTF_8));
    ArrayNode rendered = render();
    if (!rendered.equals(file.get("properties")) && Boolean.getBoolean("metadata.write")) {
      ObjectNode updated = JSON.createObjectNode();
      updated.set("properties", rendered);
      updated.set("hints", file.get("hints"));
      DefaultPrettyPrinter printer =
          new DefaultPrettyPrinter().withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE);
      Files.writeString(
          FILE,
          JSON.writer(printer).writeValueAsString(updated).replace(" : ", ": ") + "\n",
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(file.get("properties"))
        .as(
            "%s differs from SettingsCatalog; run with -Dmetadata.write=true to render it; the"
                + " properties from the catalog:%n%s",
            FILE, rendered.toPrettyString())
        .isEqualTo(rendered);
  }

  /** One entry per key of the catalog (a family has no one name), in the catalog's order. */
  static ArrayNode render() {
    ArrayNode properties = JSON.createArrayNode();
    for (Setting<?> s : SettingsCatalog.all()) {
      if (s.isFamily()) {
        continue;
      }
      ObjectNode p = properties.addObject();
      p.put("name", s.property());
      p.put("type", type(s.kind()));
      s.defaultValue().ifPresent(v -> p.set("defaultValue", typed(s.kind(), v)));
      p.put("description", description(s));
    }
    return properties;
  }

  private static String description(Setting<?> s) {
    String meaning = sentence(s.meaning());
    String rule = " Allowed: " + s.allowed() + ".";
    if (s.isReadBy(SettingsCatalog.Mode.SPRING)) {
      return meaning + rule;
    }
    List<String> readers =
        Arrays.stream(SettingsCatalog.Mode.values())
            .filter(s::isReadBy)
            .map(m -> "the " + m.label())
            .toList();
    String by =
        readers.size() == 1
            ? readers.get(0)
            : String.join(", ", readers.subList(0, readers.size() - 1))
                + " and "
                + readers.get(readers.size() - 1);
    return "Read by "
        + by
        + " only (the starter accepts it, since the same -Dwriter-fence.* system properties"
        + " reach Spring). "
        + meaning
        + rule;
  }

  private static String sentence(String text) {
    String s = text.substring(0, 1).toUpperCase(Locale.ROOT) + text.substring(1);
    return s.endsWith(".") ? s : s + ".";
  }

  private static String type(Setting.Kind kind) {
    return switch (kind) {
      case FLAG -> "java.lang.Boolean";
      case WHOLE_NUMBER -> "java.lang.Integer";
      case NUMBER -> "java.lang.Double";
      case DURATION -> "java.time.Duration";
      case TEXT, CHOICE -> "java.lang.String";
    };
  }

  private static JsonNode typed(Setting.Kind kind, String value) {
    return switch (kind) {
      case FLAG -> JSON.getNodeFactory().booleanNode(Boolean.parseBoolean(value));
      case WHOLE_NUMBER -> JSON.getNodeFactory().numberNode(Integer.parseInt(value));
      case NUMBER -> JSON.getNodeFactory().numberNode(Double.parseDouble(value));
      default -> JSON.getNodeFactory().textNode(value);
    };
  }
}
