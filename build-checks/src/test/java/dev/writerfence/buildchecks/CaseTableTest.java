package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** docs/cases.md defines the case ids that tests and comments use, and names those tests. */
class CaseTableTest {
  private static final Path CASES = Path.of("docs", "cases.md");

  private static CaseTable table;

  /** Test method name (Cnn_...) to the files that declare it. */
  private static final Map<String, List<Path>> caseTests = new TreeMap<>();

  /** Case id used anywhere in the repository to one file that uses it. */
  private static final Map<String, Path> idsUsed = new TreeMap<>();

  @BeforeAll
  static void readRepository() throws Exception {
    Repository repository = Repository.fromBuild();
    table = CaseTable.parse(Files.readString(repository.root().resolve(CASES)));
    for (Path file : repository.files()) {
      Optional<String> text = repository.text(file);
      if (text.isEmpty() || file.equals(CASES)) {
        continue;
      }
      CaseTable.CASE_ID
          .matcher(text.get())
          .results()
          .forEach(r -> idsUsed.putIfAbsent(r.group(), file));
      if (file.toString().endsWith(".java")) {
        CaseTable.CASE_TEST
            .matcher(text.get())
            .results()
            .forEach(r -> caseTests.computeIfAbsent(r.group(1), k -> new ArrayList<>()).add(file));
      }
    }
  }

  @Test
  void theTableHasEveryCaseFromC01ToC39OnceInOrder() {
    List<String> expected =
        IntStream.rangeClosed(1, 39).mapToObj(i -> String.format("C%02d", i)).toList();

    assertThat(table.ids()).containsExactlyElementsOf(expected);
  }

  @Test
  void everyCaseIdUsedInTheRepositoryIsDefinedByTheTable() {
    Map<String, Path> undefined = new TreeMap<>(idsUsed);
    undefined.keySet().removeAll(table.ids());

    assertThat(undefined)
        .as("case ids that docs/cases.md does not define, with a file using each")
        .isEmpty();
  }

  @Test
  void everyTestNamedAfterACaseIsInThatCasesRow() {
    List<String> missing = new ArrayList<>();
    caseTests.forEach(
        (method, files) -> {
          if (!table.names(method.substring(0, 3), method)) {
            missing.add(method + " (" + files + ")");
          }
        });

    assertThat(caseTests).as("test methods named after cases").isNotEmpty();
    assertThat(missing)
        .as("tests that the row of their case in docs/cases.md does not name")
        .isEmpty();
  }

  @Test
  void everyTestTheTableNamesExists() {
    Set<String> stale = new TreeSet<>(table.testsNamed());
    stale.removeAll(caseTests.keySet());

    assertThat(stale).as("tests named in docs/cases.md that no test class declares").isEmpty();
  }

  @Test
  void aRowNamesATestOnlyByItsWholeNameAndACaseHasOneRow() {
    CaseTable sample =
        CaseTable.parse(
            String.join(
                "\n",
                "| id | scenario | expected | tests |",
                "| --- | --- | --- | --- |",
                "| C01 | two acquires | one wins | `AcquireTest.C01_oneWins` |",
                "| C02 | busy | busy | not yet (issue 11) |"));

    assertThat(sample.ids()).containsExactly("C01", "C02");
    assertThat(sample.names("C01", "C01_oneWins")).isTrue();
    assertThat(sample.names("C01", "C01_one")).isFalse();
    assertThat(sample.names("C02", "C01_oneWins")).isFalse();
    assertThat(sample.testsNamed()).containsExactly("C01_oneWins");
    assertThatThrownBy(() -> CaseTable.parse("| C03 | a |\n| C03 | b |"))
        .hasMessageContaining("C03 has two rows");
  }
}
