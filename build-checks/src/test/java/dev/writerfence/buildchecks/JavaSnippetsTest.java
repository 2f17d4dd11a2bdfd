package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JavaSnippetsTest {
  /**
   * The test class path (writer-fence-core and what it brings), which Surefire names in a system
   * property of its own: its java.class.path may be a single jar whose manifest lists the rest.
   */
  private static String classPath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  @Test
  void everyJavaBlockMarkedCompleteCompilesAgainstTheModules(@TempDir Path work) throws Exception {
    Repository repository = Repository.fromBuild();
    List<String> errors = new ArrayList<>();
    int complete = 0;
    int n = 0;
    for (Path file : repository.files()) {
      if (file.toString().endsWith(".md")) {
        String text = repository.text(file).orElse("");
        complete += JavaSnippets.complete(text).size();
        errors.addAll(
            JavaSnippets.errors(file.toString(), text, classPath(), work.resolve("f" + n++)));
      }
    }

    assertThat(complete).as("```java complete blocks read (docs/java-api.md has one)").isPositive();
    assertThat(errors)
        .as("```java complete blocks of the Markdown files that do not compile (fix the snippet)")
        .isEmpty();
  }

  /**
   * The Spring Boot page's test class, which this test compiles, is the one consumer-check's kit
   * consumer runs on Spring Boot 3.5 and 4.0 (KitConsumerIT), word for word.
   */
  @Test
  void theSpringBootPagesTestClassIsTheOneTheKitConsumerRuns() throws Exception {
    Repository repository = Repository.fromBuild();
    String page = repository.text(Path.of("docs/spring-boot.md")).orElseThrow();
    String test =
        repository
            .text(
                Path.of(
                    "consumer-check/src/it/kit-consumer/src/test/java/com/example/UploadsTest.java"))
            .orElseThrow();

    assertThat(JavaSnippets.complete(page))
        .as(
            "docs/spring-boot.md's Testing section shows the kit consumer's UploadsTest; copy it over")
        .anySatisfy(block -> assertThat(block.code()).isEqualTo(test));
  }

  @Test
  void anErrorIsReportedAtItsLineOfTheMarkdownFileAndExcerptsAreNotCompiled(@TempDir Path work) {
    String text =
        String.join(
            "\n",
            "# page",
            "```java",
            "void excerpt() { ... }",
            "```",
            "```java complete",
            "public class Fine {",
            "  static String s = dev.writerfence.FenceRequest.of(\"corpus\").fenceName();",
            "}",
            "```",
            "```java complete",
            "class Broken {",
            "  int a = \"text\";",
            "}",
            "```");

    List<String> errors = JavaSnippets.errors("p.md", text, classPath(), work);

    // "Fine" compiles only with writer-fence-core on the class path; the excerpt is not compiled.
    assertThat(errors).hasSize(1);
    assertThat(errors.get(0)).startsWith("p.md:12: ");
  }

  @Test
  void aLaterBlockCompilesAgainstTheEarlierBlocksOfItsPage(@TempDir Path work) {
    String text =
        String.join(
            "\n",
            "```java complete",
            "package com.example;",
            "public class Uploads {}",
            "```",
            "```java complete",
            "package com.example;",
            "class UploadsTest { Uploads uploads = new Uploads(); }",
            "```");

    assertThat(JavaSnippets.errors("p.md", text, classPath(), work.resolve("page"))).isEmpty();
    assertThat(
            JavaSnippets.errors(
                "q.md",
                text.substring(text.indexOf("```\n") + 4),
                classPath(),
                work.resolve("alone")))
        .as("the test block alone does not compile: Uploads is the earlier block's")
        .isNotEmpty();
  }
}
