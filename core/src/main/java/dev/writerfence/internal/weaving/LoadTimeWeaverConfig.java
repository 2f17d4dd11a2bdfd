package dev.writerfence.internal.weaving;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/**
 * What AspectJ's load-time weaver of this JVM would weave with: whether its agent ({@code
 * -javaagent:aspectjweaver.jar}) is attached, and which aspects the configuration files it reads
 * declare. The files are those the weaver reads: {@code META-INF/aop.xml}, {@code
 * META-INF/aop-ajc.xml} and {@code org/aspectj/aop.xml}, or the {@code ;}-separated list of the
 * system property {@value #CONFIGURATION}.
 */
final class LoadTimeWeaverConfig {
  /** The weaver's system property naming its configuration resources. */
  static final String CONFIGURATION = "org.aspectj.weaver.loadtime.configuration";

  private static final String DEFAULT_CONFIGURATION =
      "META-INF/aop.xml;META-INF/aop-ajc.xml;org/aspectj/aop.xml";
  private static final String AGENT = "org.aspectj.weaver.loadtime.Agent";

  private LoadTimeWeaverConfig() {}

  /**
   * @return whether AspectJ's weaving agent was started in this JVM (its class on the system class
   *     path is not enough: it must hold an instrumentation)
   */
  static boolean weaverAttached() {
    try {
      Class<?> agent = Class.forName(AGENT, false, ClassLoader.getSystemClassLoader());
      return agent.getMethod("getInstrumentation").invoke(null) != null;
    } catch (ReflectiveOperationException | LinkageError e) {
      return false; // not on the class path, or never started (getInstrumentation throws)
    }
  }

  /**
   * @param loader the class loader whose resources the weaver reads
   * @param unreadable where a line naming each file that cannot be read or parsed goes (the weaver
   *     cannot read it either)
   * @return the {@code name} of every {@code <aspect>} that a readable configuration file declares,
   *     in the order the files were found
   */
  static List<String> declaredAspects(ClassLoader loader, List<String> unreadable) {
    String configuration = System.getProperty(CONFIGURATION, DEFAULT_CONFIGURATION);
    List<String> aspects = new ArrayList<>();
    for (String resource : configuration.split(";")) {
      if (resource.isBlank()) {
        continue;
      }
      List<URL> urls;
      try {
        urls = Collections.list(loader.getResources(resource.strip()));
      } catch (IOException e) {
        unreadable.add("cannot list the weaver's configuration " + resource + ": " + e);
        continue;
      }
      for (URL url : urls) {
        try {
          aspects.addAll(aspectsIn(url));
        } catch (IOException | SAXException | ParserConfigurationException e) {
          unreadable.add(
              "the weaver's configuration " + url + " is not readable XML: " + e.getMessage());
        }
      }
    }
    return aspects;
  }

  private static List<String> aspectsIn(URL url)
      throws IOException, SAXException, ParserConfigurationException {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    // aop.xml names AspectJ's DTD by URL: never fetch it (no network, no external entities).
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
    factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
    DocumentBuilder builder = factory.newDocumentBuilder();
    builder.setErrorHandler(new ThrowingErrorHandler()); // not the default's print to stderr
    List<String> names = new ArrayList<>();
    try (InputStream in = url.openStream()) {
      NodeList list = builder.parse(in).getElementsByTagName("aspect");
      for (int i = 0; i < list.getLength(); i++) {
        names.add(((Element) list.item(i)).getAttribute("name").strip());
      }
    }
    return names;
  }

  /** Fails on errors, ignores warnings, prints nothing. */
  private static final class ThrowingErrorHandler implements ErrorHandler {
    @Override
    public void warning(SAXParseException e) {}

    @Override
    public void error(SAXParseException e) throws SAXParseException {
      throw e;
    }

    @Override
    public void fatalError(SAXParseException e) throws SAXParseException {
      throw e;
    }
  }
}
