package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.internal.config.Setting;
import dev.writerfence.internal.config.SettingsCatalog;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Every {@code writer-fence.*} line of a {@code ```properties} block in the Markdown files, shown
 * set or commented out as an option, names a setting of the catalog and, where its value is
 * complete, a value that setting accepts: a copied {@code application.properties} starts.
 */
class PropertiesSnippetsTest {
  // A property line, set or commented out ("#writer-fence.backend=advisory"), with its value.
  private static final Pattern LINE =
      Pattern.compile("^\\s*#?\\s*(writer-fence\\.[A-Za-z0-9.<>_-]+)\\s*[=:]\\s*(.*)$");

  @Test
  void everyWriterFenceKeyOfThePropertiesBlocksIsASettingWithAnAllowedValue() throws Exception {
    Repository repository = Repository.fromBuild();
    List<String> wrong = new ArrayList<>();
    long lines = 0;
    for (Path file : repository.files()) {
      if (!file.toString().endsWith(".md")) {
        continue;
      }
      String text = repository.text(file).orElse("");
      for (CodeBlocks.Block block : CodeBlocks.in(text)) {
        if (!block.language().equals("properties")) {
          continue;
        }
        List<String> code = block.code().lines().toList();
        for (int i = 0; i < code.size(); i++) {
          Matcher m = LINE.matcher(code.get(i));
          if (m.matches()) {
            lines++;
            problem(m.group(1), m.group(2))
                .ifPresent(p -> wrong.add(file + " (block at line " + block.line() + "): " + p));
          }
        }
      }
    }

    assertThat(lines).as("writer-fence.* lines of ```properties blocks read").isPositive();
    assertThat(wrong)
        .as("```properties lines whose writer-fence key or value the starter would refuse")
        .isEmpty();
  }

  @Test
  void aMisspelledKeyAndABadValueAreReported() {
    assertThat(problem("writer-fence.tll", "30s")).get().asString().contains("unknown setting");
    assertThat(problem("writer-fence.ttl", "soon")).get().asString().contains("ttl 'soon'");
    assertThat(problem("writer-fence.ttl", "30s")).isEmpty();
    assertThat(problem("writer-fence.datasource.url", "jdbc:postgresql://...")).isEmpty();
  }

  /**
   * @return what is wrong with the line, or empty when the key is a setting and the value is
   *     allowed (or only a placeholder, such as {@code ...} or {@code ${SECRET}})
   */
  private static Optional<String> problem(String property, String value) {
    String bareKey = property.substring(SettingsCatalog.PREFIX.length());
    Optional<Setting<?>> setting = SettingsCatalog.find(bareKey);
    if (setting.isEmpty()) {
      return Optional.of(property + ": " + SettingsCatalog.whyUnknown(bareKey));
    }
    String v = value.replaceFirst("\\s+#.*$", "").strip();
    if (v.isEmpty() || v.contains("...") || v.contains("…") || v.contains("${")) {
      return Optional.empty();
    }
    try {
      setting.get().parse(bareKey, v);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(property + "=" + v + ": " + e.getMessage());
    }
  }
}
