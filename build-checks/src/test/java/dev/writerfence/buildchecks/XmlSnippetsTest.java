package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class XmlSnippetsTest {
  @Test
  void everyXmlBlockOfTheMarkdownFilesIsWellFormed() throws Exception {
    Repository repository = Repository.fromBuild();
    List<String> malformed = new ArrayList<>();
    long blocks = 0;
    for (Path file : repository.files()) {
      if (file.toString().endsWith(".md")) {
        String text = repository.text(file).orElse("");
        blocks += CodeBlocks.in(text).stream().filter(b -> b.language().equals("xml")).count();
        malformed.addAll(XmlSnippets.malformed(file.toString(), text));
      }
    }

    assertThat(blocks).as("```xml blocks read").isPositive();
    assertThat(malformed)
        .as("```xml blocks of the Markdown files that do not parse as XML (fix the snippet)")
        .isEmpty();
  }

  @Test
  void aFragmentOfSeveralElementsParsesAndABrokenOneIsReportedAtItsLine() {
    String text =
        String.join(
            "\n",
            "# page",
            "```xml",
            "<?xml version=\"1.0\"?>",
            "<dependency><artifactId>a</artifactId></dependency>",
            "<plugin><version>1</version></plugin>",
            "```",
            "- a list item:",
            "  ```xml",
            "  <include file=\"x\"/>",
            "  ```",
            "```XML",
            "<dependency>",
            "  <artifactId>b</artifact>",
            "</dependency>",
            "```",
            "```properties",
            "not <xml",
            "```");

    List<String> malformed = XmlSnippets.malformed("p.md", text);

    assertThat(malformed).hasSize(1);
    assertThat(malformed.get(0)).startsWith("p.md:13: ").contains("artifact");
  }

  @Test
  void codeBlocksKeepTheirLanguageFirstLineAndTextWithoutIndentationAndSkipInlineCode() {
    List<CodeBlocks.Block> blocks =
        CodeBlocks.in(
            String.join(
                "\n",
                "text",
                "  ```java Complete",
                "  int a;",
                "  ```",
                "```` ```xml ````",
                "```",
                "x",
                "```"));

    assertThat(blocks)
        .containsExactly(
            new CodeBlocks.Block("java", List.of("complete"), 3, "int a;\n"),
            new CodeBlocks.Block("", List.of(), 7, "x\n"));
  }
}
