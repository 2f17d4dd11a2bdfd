package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference, docs/configuration.md, is the catalog, rendered: a setting added,
 * removed or changed in {@link SettingsCatalog} without the page (or the other way round) fails
 * here, and the message says how to regenerate it. {@code -Dsettings.table.write=true} writes the
 * table into the page instead.
 */
class SettingsTableTest {
  static final String BEGIN =
      "<!-- settings table: generated from SettingsCatalog, checked by SettingsTableTest -->";
  static final String END = "<!-- end of settings table -->";
  private static final Path PAGE = Path.of("..", "docs", "configuration.md");
  private static final String REGENERATE =
      "mvn -pl fault-suite,benchmarks,consumer-check,build-checks test -Dtest=SettingsTableTest"
          + " -Dsurefire.failIfNoSpecifiedTests=false -Dsettings.table.write=true";

  @Test
  void theConfigurationPageIsTheCatalog() throws Exception {
    String page = Files.readString(PAGE, StandardCharsets.UTF_8);
    int begin = page.indexOf(BEGIN);
    int end = page.indexOf(END);
    assertThat(begin).as("docs/configuration.md has the marker %s", BEGIN).isNotNegative();
    assertThat(end).as("docs/configuration.md has the marker %s", END).isGreaterThan(begin);
    String table = render();
    String current = page.substring(begin + BEGIN.length(), end).strip();
    if (!current.equals(table) && Boolean.getBoolean("settings.table.write")) {
      Files.writeString(
          PAGE,
          page.substring(0, begin + BEGIN.length()) + "\n" + table + "\n" + page.substring(end),
          StandardCharsets.UTF_8);
      return;
    }
    assertThat(current)
        .as(
            "docs/configuration.md's settings table differs from SettingsCatalog: regenerate it"
                + " with %s (from the repository's root, after mvn install -DskipTests), then"
                + " review and commit the page",
            REGENERATE)
        .isEqualTo(table);
  }

  @Test
  void cellsKeepTheirPipesAndAngleBracketsAsText() {
    assertThat(cell("throw|skip")).isEqualTo("throw\\|skip");
    assertThat(cell("LABEL@<host>:<pid>")).isEqualTo("LABEL@&lt;host&gt;:&lt;pid&gt;");
    assertThat(cell("a `{pid}` b|c")).isEqualTo("a `{pid}` b\\|c");
  }

  @Test
  void everySettingOfTheCatalogHasItsRowWithTypeAndSpringName() {
    String table = render();
    for (Setting<?> s : SettingsCatalog.all()) {
      String spring = s.isReadBy(SettingsCatalog.Mode.SPRING) ? "`" + s.property() + "`" : "-";
      assertThat(table)
          .as("the row of %s", s.key())
          .contains("| `" + s.key() + "` | " + kind(s) + " | ")
          .contains(" | " + spring + " | ");
    }
    assertThat(table.lines().count()).isEqualTo(SettingsCatalog.all().size() + 2L);
  }

  /** The table, one row per setting in the catalog's order. */
  static String render() {
    StringBuilder out = new StringBuilder();
    out.append(
        "| setting | type | default | allowed | read by | Spring property | Java API | meaning |\n");
    out.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
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
      String spring = s.isReadBy(SettingsCatalog.Mode.SPRING) ? "`" + s.property() + "`" : "-";
      out.append("| `")
          .append(s.key())
          .append("` | ")
          .append(kind(s))
          .append(" | ")
          .append(defaults)
          .append(" | ")
          .append(cell(s.allowed()))
          .append(" | ")
          .append(readBy)
          .append(" | ")
          .append(spring)
          .append(" | ")
          .append(api)
          .append(" | ")
          .append(cell(s.meaning()))
          .append(" |\n");
    }
    return out.toString().strip();
  }

  /** The kind of a setting's values as the page names it. */
  static String kind(Setting<?> s) {
    return switch (s.kind()) {
      case TEXT -> "text";
      case FLAG -> "true/false";
      case WHOLE_NUMBER -> "whole number";
      case NUMBER -> "number";
      case DURATION -> "duration";
      case CHOICE -> "choice";
    };
  }

  /**
   * Prose for a table cell: a {@code |} would end the cell, and {@code <host>} would be read as an
   * HTML tag and vanish, so both are escaped (text in backticks is left alone but for the pipe,
   * which ends a cell even there).
   */
  static String cell(String text) {
    StringBuilder out = new StringBuilder();
    boolean code = false;
    for (char c : text.toCharArray()) {
      if (c == '`') {
        code = !code;
      }
      if (c == '|') {
        out.append("\\|");
      } else if (!code && c == '<') {
        out.append("&lt;");
      } else if (!code && c == '>') {
        out.append("&gt;");
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
