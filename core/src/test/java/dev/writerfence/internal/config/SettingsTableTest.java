package dev.writerfence.internal.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's Configuration table is the catalog, rendered: a setting added, removed or changed in
 * {@link SettingsCatalog} without the README (or the other way round) fails here, and the message
 * holds the table to paste. {@code -Dsettings.table.write=true} writes it into the README instead.
 */
class SettingsTableTest {
  static final String BEGIN =
      "<!-- settings table: generated from SettingsCatalog, checked by SettingsTableTest -->";
  static final String END = "<!-- end of settings table -->";
  private static final Path README = Path.of("..", "README.md");

  @Test
  void theReadmeTableIsTheCatalog() throws Exception {
    String readme = Files.readString(README, StandardCharsets.UTF_8);
    int begin = readme.indexOf(BEGIN);
    int end = readme.indexOf(END);
    assertThat(begin).as("README.md has the marker %s", BEGIN).isNotNegative();
    assertThat(end).as("README.md has the marker %s", END).isGreaterThan(begin);
    String table = render();
    String current = readme.substring(begin + BEGIN.length(), end).strip();
    if (!current.equals(table) && Boolean.getBoolean("settings.table.write")) {
      Files.writeString(
          README,
          readme.substring(0, begin + BEGIN.length()) + "\n" + table + "\n" + readme.substring(end),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(current)
        .as(
            "README.md's Configuration table differs from SettingsCatalog; the table from the"
                + " catalog (or run with -Dsettings.table.write=true):%n%s%n",
            table)
        .isEqualTo(table);
  }

  /** The table, one row per setting in the catalog's order. */
  static String render() {
    StringBuilder out = new StringBuilder();
    out.append("| setting | read by | Java API | default | allowed | meaning |\n");
    out.append("| --- | --- | --- | --- | --- | --- |\n");
    for (Setting<?> s : SettingsCatalog.all()) {
      String readBy =
          Arrays.stream(SettingsCatalog.Mode.values())
              .filter(s::isReadBy)
              .map(SettingsCatalog.Mode::label)
              .collect(Collectors.joining(", "));
      String api =
          s.javaApi().isEmpty()
              ? ""
              : Arrays.stream(s.javaApi().split(", "))
                  .map(a -> "`" + a + "`")
                  .collect(Collectors.joining(", "));
      // A computed default in angle brackets is code, or Markdown would take it for HTML.
      String computed =
          s.defaultText().contains("<") ? "`" + s.defaultText() + "`" : s.defaultText();
      String defaults = s.defaultValue().map(v -> "`" + v + "`").orElse(computed);
      out.append("| `")
          .append(s.key())
          .append("` | ")
          .append(readBy)
          .append(" | ")
          .append(api)
          .append(" | ")
          .append(defaults)
          .append(" | ")
          .append(s.allowed())
          .append(" | ")
          .append(s.meaning())
          .append(" |\n");
    }
    return out.toString().strip();
  }
}
