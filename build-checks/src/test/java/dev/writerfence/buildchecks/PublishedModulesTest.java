package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * One list of what is published: the modules whose POMs do not set {@code writer-fence.unpublished}
 * are the ones docs/releasing.md lists, the ones consumer-check deploys (and builds its consumers
 * against) and the ones the BOM manages.
 */
class PublishedModulesTest {
  private static final Path RELEASING = Path.of("docs", "releasing.md");

  /** A row of the table under "What is published": its first cell opens with the artifactId. */
  private static final Pattern ROW = Pattern.compile("(?m)^\\| `(writer-fence-[a-z0-9-]+)`");

  private static Path root;
  private static List<Modules.Module> published;

  @BeforeAll
  static void readModules() throws Exception {
    root = Repository.fromBuild().root();
    published = Modules.under(root).stream().filter(Modules.Module::published).toList();
  }

  @Test
  void releasingListsEveryPublishedArtifactAndNoOther() throws Exception {
    String text = Files.readString(root.resolve(RELEASING));
    int start = text.indexOf("## What is published");
    assertThat(start).as(RELEASING + " has a section \"## What is published\"").isNotNegative();
    int end = text.indexOf("\n## ", start + 1);
    String section = text.substring(start, end < 0 ? text.length() : end);
    Set<String> listed = new TreeSet<>();
    Matcher row = ROW.matcher(section);
    while (row.find()) {
      listed.add(row.group(1));
    }

    assertThat(listed)
        .as(
            "the artifacts %s lists under \"What is published\" against the modules whose POMs do"
                + " not set writer-fence.unpublished",
            RELEASING)
        .isEqualTo(artifactIds());
  }

  @Test
  void theConsumerCheckDeploysEveryPublishedModuleAndNoOther() throws Exception {
    String list = property(root.resolve("consumer-check/pom.xml"), "consumer-check.published");
    Set<String> deployed =
        Set.of(list.split(",")).stream().map(String::strip).collect(Collectors.toSet());
    Set<String> folders =
        published.stream().map(m -> m.folder().toString()).collect(Collectors.toSet());

    assertThat(new TreeSet<>(deployed))
        .as(
            "consumer-check.published in consumer-check/pom.xml (module folders) against the"
                + " modules whose POMs do not set writer-fence.unpublished")
        .isEqualTo(new TreeSet<>(folders));
  }

  @Test
  void theBomManagesEveryOtherPublishedArtifact() throws Exception {
    Document bom = parse(root.resolve("bom/pom.xml"));
    Element management =
        (Element) bom.getDocumentElement().getElementsByTagName("dependencyManagement").item(0);
    NodeList artifacts = management.getElementsByTagName("artifactId");
    Set<String> managed = new TreeSet<>();
    for (int i = 0; i < artifacts.getLength(); i++) {
      managed.add(artifacts.item(i).getTextContent().strip());
    }
    Set<String> expected = artifactIds();
    expected.remove("writer-fence-bom");

    assertThat(managed).as("the artifacts bom/pom.xml manages").isEqualTo(expected);
  }

  private static Set<String> artifactIds() {
    return published.stream()
        .map(Modules.Module::artifactId)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** A property of the POM's own {@code <properties>} (not a plugin's setting of that name). */
  private static String property(Path pom, String name) throws Exception {
    NodeList children = parse(pom).getDocumentElement().getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element e && e.getTagName().equals("properties")) {
        NodeList nodes = e.getElementsByTagName(name);
        assertThat(nodes.getLength()).as(pom + " sets the property " + name).isEqualTo(1);
        return nodes.item(0).getTextContent().strip();
      }
    }
    throw new AssertionError(pom + " has no <properties>, so no property " + name);
  }

  private static Document parse(Path pom) throws Exception {
    return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
  }
}
