package dev.writerfence.agent.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The built agent jar: its manifest, and that nothing but the agent's own packages and the
 * unrelocated annotation is left outside {@code dev.writerfence.agent.shaded}, in the plain class
 * tree, in the multi-release trees, in class references and in service files.
 */
class AgentJarIT {
  /** Where {@code package} writes the agent, relative to the module (failsafe's working dir). */
  static final Path AGENT_JAR = Path.of("target", "writer-fence-agent.jar");

  private static final String SHADED = "dev/writerfence/agent/shaded/";
  private static final List<String> ALLOWED_CLASS_PREFIXES =
      List.of("dev/writerfence/agent/", "dev/writerfence/annotation/");
  private static final Pattern VERSIONED = Pattern.compile("^META-INF/versions/(\\d+)/(.*)$");
  private static final String NESTED_BOOTSTRAP_JAR =
      "META-INF/writer-fence/writer-fence-bootstrap.jar";

  /**
   * A name, in a class file's constant pool, in a package that must have been relocated: not
   * preceded by a slash (the relocated form is {@code .../shaded/net/bytebuddy/...}). Group 2 is a
   * file extension: {@code org/postgresql/driverconfig.properties} is a resource the driver looks
   * up on the host's class path, not a class.
   */
  private static final Pattern UNRELOCATED_NAME =
      Pattern.compile(
          "(?<!/)L?((?:net/bytebuddy|org/postgresql|io/github/resilience4j|org/slf4j|com/zaxxer"
              + "|com/fasterxml/jackson|org/checkerframework"
              + "|dev/writerfence(?!/agent/|/annotation/|/bootstrap/|/audit/))/[A-Za-z0-9_$/]*)"
              + "(\\.[A-Za-z]+)?");

  /** Every file of the jar, by entry name, in jar order. */
  private static Map<String, byte[]> files;

  private static Attributes manifest;

  @BeforeAll
  static void readJar() throws IOException {
    files = new LinkedHashMap<>();
    try (JarFile jar = new JarFile(AGENT_JAR.toFile())) {
      manifest = jar.getManifest().getMainAttributes();
      for (JarEntry entry : Collections.list(jar.entries())) {
        if (!entry.isDirectory()) {
          try (InputStream in = jar.getInputStream(entry)) {
            files.put(entry.getName(), in.readAllBytes());
          }
        }
      }
    }
  }

  @Test
  void manifestNamesBothEntryPointsAndRetransformation() {
    assertThat(manifest.getValue("Premain-Class"))
        .isEqualTo("dev.writerfence.agent.WriterFenceAgent");
    assertThat(manifest.getValue("Agent-Class"))
        .isEqualTo("dev.writerfence.agent.WriterFenceAgent");
    assertThat(manifest.getValue("Can-Retransform-Classes")).isEqualTo("true");
    assertThat(manifest.getValue("Multi-Release")).isEqualTo("true");
    assertThat(manifest.getValue("Implementation-Version")).isNotBlank();
  }

  @Test
  void everyClassIsTheAgentsOwnOrRelocated() {
    assertThat(classNames())
        .as("classes outside the allowed packages")
        .allMatch(n -> ALLOWED_CLASS_PREFIXES.stream().anyMatch(unversioned(n)::startsWith));
  }

  @Test
  void multiReleaseClassesSitUnderTheRelocatedPackage() {
    List<String> versioned =
        classNames().stream().filter(n -> VERSIONED.matcher(n).matches()).toList();
    // Byte Buddy's Java 24+ bridge to the class file API, found by the relocated name it asks for.
    assertThat(versioned)
        .contains(
            "META-INF/versions/24/"
                + SHADED
                + "net/bytebuddy/jar/asmjdkbridge/JdkClassReader.class")
        .allMatch(n -> unversioned(n).startsWith(SHADED), "under " + SHADED);
  }

  @Test
  void noClassReferencesAnUnrelocatedDependency() {
    TreeSet<String> bad = new TreeSet<>();
    for (String name : classNames()) {
      // Constant pool names are modified UTF-8; ISO-8859-1 keeps every byte one character.
      Matcher m =
          UNRELOCATED_NAME.matcher(new String(files.get(name), StandardCharsets.ISO_8859_1));
      while (m.find()) {
        if (m.group(2) == null) {
          bad.add(name + " -> " + m.group(1));
        }
      }
    }
    assertThat(bad).as("names in unrelocated packages").isEmpty();
  }

  @Test
  void theFencesPoolTravelsRelocatedWithoutItsIntegrationsOrTheApplicationsConfigurationFile() {
    String hikari = SHADED + "com/zaxxer/hikari/";
    assertThat(files)
        .containsKey(hikari + "HikariDataSource.class")
        .containsKey(hikari + "pool/HikariPool.class");
    // Integrations with libraries the agent does not carry are left out (agent/pom.xml).
    assertThat(classNames())
        .noneMatch(n -> n.startsWith(hikari + "hibernate/"))
        .noneMatch(n -> n.startsWith(hikari + "metrics/micrometer/"))
        .noneMatch(n -> n.startsWith(hikari + "metrics/dropwizard/"))
        .noneMatch(n -> n.startsWith(hikari + "metrics/prometheus/"))
        .noneMatch(n -> n.startsWith(hikari + "util/JavassistProxyFactory"));
    // The agent's pool reads its own configuration file property, never the application's.
    String config =
        new String(files.get(hikari + "HikariConfig.class"), StandardCharsets.ISO_8859_1);
    assertThat(config)
        .contains("dev.writerfence.agent.shaded.hikaricp.configurationFile")
        .doesNotContainPattern("(?<!shaded\\.)hikaricp\\.configurationFile");
    // And the agent's copy of core finds it by its relocated name: it pools.
    String dataSources =
        new String(
            files.get(SHADED + "writerfence/config/DataSources.class"),
            StandardCharsets.ISO_8859_1);
    assertThat(dataSources)
        .contains("dev.writerfence.agent.shaded.com.zaxxer.hikari.HikariDataSource");
  }

  @Test
  void serviceFilesNameRelocatedClassesThatExist() {
    List<String> problems = new ArrayList<>();
    files.forEach(
        (name, bytes) -> {
          if (!name.startsWith("META-INF/services/")) {
            return;
          }
          String service = name.substring("META-INF/services/".length());
          if (!service.startsWith("java.") && !service.startsWith("javax.")) {
            checkRelocated(service, name, problems);
          }
          for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            String provider = line.replaceAll("#.*", "").strip();
            if (!provider.isEmpty()) {
              checkRelocated(provider, name, problems);
            }
          }
        });
    assertThat(problems).isEmpty();
    // The shaded driver must not register itself for the host's jdbc:postgresql: URLs.
    assertThat(files).doesNotContainKey("META-INF/services/java.sql.Driver");
  }

  @Test
  void bootstrapClassesTravelOnlyInTheNestedJar() throws IOException {
    assertThat(files).as("the nested bootstrap jar").containsKey(NESTED_BOOTSTRAP_JAR);
    List<String> nested = new ArrayList<>();
    try (JarInputStream in =
        new JarInputStream(new ByteArrayInputStream(files.get(NESTED_BOOTSTRAP_JAR)))) {
      for (JarEntry e = in.getNextJarEntry(); e != null; e = in.getNextJarEntry()) {
        if (e.getName().endsWith(".class") && !e.getName().endsWith("module-info.class")) {
          nested.add(e.getName());
        }
      }
    }
    assertThat(nested)
        .contains("dev/writerfence/bootstrap/HeldFenceStack.class")
        .allMatch(
            n -> n.startsWith("dev/writerfence/") && !n.startsWith("dev/writerfence/agent/"),
            "a JDK-only writer-fence class");
    // A second copy beside the nested jar could be loaded by the host's class loader.
    assertThat(files.keySet()).doesNotContainAnyElementsOf(nested);
  }

  private static List<String> classNames() {
    return files.keySet().stream().filter(n -> n.endsWith(".class")).toList();
  }

  private static void checkRelocated(String className, String serviceFile, List<String> problems) {
    String path = className.replace('.', '/') + ".class";
    if (!path.startsWith("dev/writerfence/agent/")) {
      problems.add(serviceFile + " names unrelocated " + className);
    } else if (!files.containsKey(path)) {
      problems.add(serviceFile + " names " + className + ", which is not in the jar");
    }
  }

  private static String unversioned(String name) {
    Matcher m = VERSIONED.matcher(name);
    return m.matches() ? m.group(2) : name;
  }
}
