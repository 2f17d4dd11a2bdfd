package dev.writerfence.buildchecks;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.xml.sax.InputSource;
import org.xml.sax.SAXParseException;
import org.xml.sax.helpers.DefaultHandler;

/**
 * Parses the {@code ```xml} blocks of a Markdown text, so that a copied {@code pom.xml} fragment or
 * {@code aop.xml} is well-formed. A block may be a fragment of several elements (a dependency
 * beside a plugin): it is parsed inside an element of its own, after its XML declaration if any.
 */
final class XmlSnippets {
  private static final String DECLARATION = "^\\s*<\\?xml[^?]*\\?>";

  private XmlSnippets() {}

  /**
   * @param file the Markdown file, as the report names it
   * @param text its text
   * @return one line per block that is not well-formed: {@code file:line: the parser's message};
   *     empty when every block parses
   */
  static List<String> malformed(String file, String text) {
    List<String> found = new ArrayList<>();
    for (CodeBlocks.Block block : CodeBlocks.in(text)) {
      if (!block.language().equals("xml")) {
        continue;
      }
      String body = block.code().replaceFirst(DECLARATION, "");
      try {
        parser().parse(new InputSource(new StringReader("<snippet>" + body + "</snippet>")));
      } catch (SAXParseException e) {
        int line = block.line() + Math.max(0, e.getLineNumber() - 1);
        found.add(file + ":" + line + ": " + e.getMessage());
      } catch (Exception e) {
        found.add(file + ":" + block.line() + ": " + e);
      }
    }
    return found;
  }

  private static DocumentBuilder parser() throws ParserConfigurationException {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    // A snippet never needs a DTD; refusing one keeps the parser off the network and the disk.
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    DocumentBuilder builder = factory.newDocumentBuilder();
    builder.setErrorHandler(new DefaultHandler()); // errors are thrown, not printed
    return builder;
  }
}
