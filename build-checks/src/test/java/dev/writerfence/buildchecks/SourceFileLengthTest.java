package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every main source file can be read in one sitting: at most {@value #MOST_LINES} lines. A class
 * that grows past it holds more than one concept; move one out rather than raising the bound.
 */
class SourceFileLengthTest {
  static final int MOST_LINES = 600;

  /**
   * Data tables, exempt by name: one entry per row, nothing to split out. The settings catalog
   * defines every {@code writer-fence.*} key of every mode once (ADR 23); the configuration bean
   * binds each of them as one getter and setter pair in nested groups, which Spring Boot's metadata
   * processor reads as property groups only while they are nested (ADR 61). Their rules, bindings
   * and assembly live in classes of their own.
   */
  static final Set<String> DATA_TABLES =
      Set.of("SettingsCatalog.java", "WriterFenceConfiguration.java");

  @Test
  void noMainSourceFileIsLongerThanTheBound() throws Exception {
    Repository repository = Repository.fromBuild();
    List<String> tooLong = new ArrayList<>();
    int read = 0;
    for (Path file : repository.files()) {
      if (isMainSource(file) && !DATA_TABLES.contains(file.getFileName().toString())) {
        read++;
        long lines = repository.text(file).orElse("").lines().count();
        if (lines > MOST_LINES) {
          tooLong.add(file + " (" + lines + " lines)");
        }
      }
    }

    assertThat(read).as("main source files read").isGreaterThan(100);
    assertThat(tooLong)
        .as("main source files over " + MOST_LINES + " lines; split out a concept")
        .isEmpty();
  }

  @Test
  void onlyMainSourcesAreHeldToTheBound() {
    assertThat(isMainSource(Path.of("core/src/main/java/dev/writerfence/WriterFence.java")))
        .isTrue();
    assertThat(isMainSource(Path.of("agent/src/main/kotlin/dev/writerfence/X.kt"))).isTrue();
    assertThat(isMainSource(Path.of("core/src/test/java/dev/writerfence/FairQueueTest.java")))
        .isFalse();
    assertThat(isMainSource(Path.of("docs/architecture.md"))).isFalse();
  }

  static boolean isMainSource(Path file) {
    String name = file.toString().replace('\\', '/');
    return (name.contains("/src/main/java/") || name.contains("/src/main/kotlin/"))
        && (name.endsWith(".java") || name.endsWith(".kt"));
  }
}
