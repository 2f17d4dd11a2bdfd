package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SelfContainedRepositoryTest {
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
