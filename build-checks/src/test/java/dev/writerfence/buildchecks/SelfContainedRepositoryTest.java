package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SelfContainedRepositoryTest {
  private static final Pattern ADR = Pattern.compile("docs/adr/(\\d{4})-[^/]+\\.md");

  @Test
  void noFileCitesADocumentOutsideTheRepository() throws Exception {
    Repository repository = Repository.fromBuild();
    List<Path> files = repository.files();
    List<String> citations = new ArrayList<>();
    for (Path file : files) {
      Optional<String> text = repository.text(file);
      text.ifPresent(t -> citations.addAll(OutsideCitations.in(file.toString(), t)));
    }

    assertThat(files).as("files read").contains(Path.of("README.md"), Path.of("pom.xml"));
    assertThat(citations)
        .as("citations of documents outside the repository; say what is meant, or link docs/")
        .isEmpty();
  }

  @Test
  void everyLinkOfTheMarkdownFilesPointsAtAFileOfTheRepository() throws Exception {
    Repository repository = Repository.fromBuild();
    List<Path> files = repository.files();
    Predicate<Path> exists = LocalLinks.in(files);
    List<String> broken = new ArrayList<>();
    for (Path file : files) {
      if (file.toString().endsWith(".md")) {
        repository.text(file).ifPresent(t -> broken.addAll(LocalLinks.broken(file, t, exists)));
      }
    }

    assertThat(broken).as("links to files the repository does not hold").isEmpty();
  }

  @Test
  void aLinkToAMissingFileOrOutOfTheRepositoryIsBroken() {
    Predicate<Path> exists =
        LocalLinks.in(List.of(Path.of("docs/adr/0001-a.md"), Path.of("README.md")));
    String text =
        "[a](adr/0001-a.md) [b](adr/0002-b.md#x) [c](../README.md#top) [d](https://example.com)"
            + " [e](#top) [f](../../x.md) [g](adr/)";

    assertThat(LocalLinks.broken(Path.of("docs/architecture.md"), text, exists))
        .containsExactly(
            "docs/architecture.md:1: adr/0002-b.md#x", "docs/architecture.md:1: ../../x.md");
  }

  @Test
  void everyAdrHasANumberOfItsOwnAndItsTitleSaysIt() throws Exception {
    Repository repository = Repository.fromBuild();
    Map<Integer, List<Path>> byNumber = new TreeMap<>();
    List<String> mistitled = new ArrayList<>();
    for (Path file : repository.files()) {
      Matcher m = ADR.matcher(file.toString().replace('\\', '/'));
      if (m.matches()) {
        int number = Integer.parseInt(m.group(1));
        byNumber.computeIfAbsent(number, n -> new ArrayList<>()).add(file);
        String title = repository.text(file).orElse("").lines().findFirst().orElse("");
        if (!title.startsWith("# " + number + ". ")) {
          mistitled.add(file + ": " + title);
        }
      }
    }
    byNumber.values().removeIf(sameNumber -> sameNumber.size() == 1);

    assertThat(byNumber).as("ADR numbers taken twice (renumber the later one)").isEmpty();
    assertThat(mistitled)
        .as("ADRs whose title is not '# N. ...' with their file's number")
        .isEmpty();
  }

  @Test
  void theCitationsOfTheSketchTheNotesAndTheirFolderAreFound() {
    String sketch = "DESIGN" + ".md";
    String notes = "KNOWN" + ".md";
    String text =
        String.join(
            "\n",
            "fine: UNKNOWN" + ".md and MY_DESIGN" + ".mdx are other names",
            "see " + sketch + " and the section DESIGN" + " §6",
            "(" + notes + ": measured)",
            "in .." + "/shared/cases and /work" + "/shared/" + sketch);

    assertThat(OutsideCitations.in("f.md", text))
        .containsExactly(
            "f.md:2: " + sketch,
            "f.md:2: DESIGN" + " §",
            "f.md:3: " + notes,
            "f.md:4: " + sketch,
            "f.md:4: .." + "/shared",
            "f.md:4: /work" + "/shared");
  }
}
