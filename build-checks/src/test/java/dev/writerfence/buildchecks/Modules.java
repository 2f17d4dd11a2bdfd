package dev.writerfence.buildchecks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/** The modules of the reactor, read from the {@code <modules>} of the POMs, recursively. */
final class Modules {
  /** The property that keeps a module, and the modules below it, out of what is published. */
  private static final String UNPUBLISHED = "writer-fence.unpublished";

  /**
   * A module's folder, relative to the repository's root, its packaging, its artifactId, and
   * whether it is published: deployed and released, as no POM from it up to the root sets {@code
   * writer-fence.unpublished} to {@code true} (aggregators here are also their modules' parents).
   */
  record Module(Path folder, String packaging, String artifactId, boolean published) {
    boolean makesJars() {
      return packaging.equals("jar");
    }
  }

  private Modules() {}

  /**
   * @param root the repository's root, the folder of the parent POM
   * @return every module below it (not the parent itself), parents before their children
   * @throws Exception when a POM cannot be read or parsed
   */
  static List<Module> under(Path root) throws Exception {
    List<Module> modules = new ArrayList<>();
    collect(root, Path.of(""), false, modules);
    return modules;
  }

  private static void collect(Path root, Path folder, boolean unpublished, List<Module> into)
      throws Exception {
    Document pom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(root.resolve(folder).resolve("pom.xml").toFile());
    Element project = pom.getDocumentElement();
    for (String name : childTexts(project, "modules", "module")) {
      Path child = folder.resolve(name).normalize();
      Document childPom =
          DocumentBuilderFactory.newInstance()
              .newDocumentBuilder()
              .parse(root.resolve(child).resolve("pom.xml").toFile());
      Element childProject = childPom.getDocumentElement();
      List<String> packaging = childTexts(childProject, null, "packaging");
      List<String> unpublishedHere = childTexts(childProject, "properties", UNPUBLISHED);
      boolean childUnpublished =
          unpublishedHere.isEmpty() ? unpublished : unpublishedHere.get(0).equals("true");
      into.add(
          new Module(
              child,
              packaging.isEmpty() ? "jar" : packaging.get(0),
              childTexts(childProject, null, "artifactId").get(0),
              !childUnpublished));
      collect(root, child, childUnpublished, into);
    }
  }

  /** Texts of {@code <leaf>} children of {@code element}, or of its {@code <group>} child. */
  private static List<String> childTexts(Element element, String group, String leaf) {
    Element parent = group == null ? element : child(element, group);
    List<String> texts = new ArrayList<>();
    if (parent == null) {
      return texts;
    }
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      Node n = nodes.item(i);
      if (n instanceof Element e && e.getTagName().equals(leaf)) {
        texts.add(e.getTextContent().strip());
      }
    }
    return texts;
  }

  private static Element child(Element element, String name) {
    NodeList nodes = element.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i) instanceof Element e && e.getTagName().equals(name)) {
        return e;
      }
    }
    return null;
  }
}
