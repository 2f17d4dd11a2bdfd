package dev.writerfence.buildchecks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs after package: every jar in the target folder of every jar module (the agent's shaded jar,
 * test jars and the CLI's too) carries the licence and a module name, one name per module.
 */
class JarMetadataIT {
  private static final Path AGENT = Path.of("agent", "target", "writer-fence-agent.jar");

  @Test
  void everyJarOfEveryModuleCarriesTheLicenceAndAModuleNameOfItsOwn() throws Exception {
    Path root = Repository.fromBuild().root();
    JarMetadata metadata =
        new JarMetadata(
            Files.readAllBytes(root.resolve("LICENSE")),
            Files.readAllBytes(root.resolve("NOTICE")));
    List<String> problems = new ArrayList<>();
    Map<String, Path> moduleOfName = new TreeMap<>();
    List<Path> checked = new ArrayList<>();

    for (Modules.Module module : Modules.under(root)) {
      if (!module.makesJars()) {
        continue;
      }
      List<Path> jars = jarsIn(root.resolve(module.folder()).resolve("target"));
      if (jars.isEmpty()) {
        problems.add(
            module.folder()
                + " built no jar before this check: is it a dependency of build-checks/pom.xml?");
      }
      for (Path jar : jars) {
        JarMetadata.Report report = metadata.check(jar);
        problems.addAll(report.problems());
        report
            .moduleName()
            .ifPresent(
                name -> {
                  Path other = moduleOfName.putIfAbsent(name, module.folder());
                  if (other != null && !other.equals(module.folder())) {
                    problems.add(
                        jar + ": Automatic-Module-Name '" + name + "' is also " + other + "'s");
                  }
                });
        checked.add(root.relativize(jar));
      }
    }

    assertThat(checked)
        .as("jars checked")
        .contains(AGENT)
        .anySatisfy(jar -> assertThat(jar.toString()).startsWith("core/target/writer-fence-core-"));
    assertThat(problems).as("jars without the licence or a module name of their own").isEmpty();
  }

  @Test
  void theShadedAgentKeepsTheLicencesOfWhatItBundles() throws Exception {
    Path agent = Repository.fromBuild().root().resolve(AGENT);
    try (JarFile jar = new JarFile(agent.toFile())) {
      String bundled = text(jar, "META-INF/THIRD-PARTY.txt");

      assertThat(bundled)
          .contains(
              "net.bytebuddy", "org.postgresql", "io.github.resilience4j", "com.zaxxer:HikariCP");
      assertThat(text(jar, "META-INF/licenses/org.postgresql/postgresql/LICENSE"))
          .contains("PostgreSQL Global Development Group");
      assertThat(text(jar, "META-INF/NOTICE")).contains("Rafael Winterhalter");
    }
  }

  @Test
  void aJarWithoutLicenceOrModuleNameIsReported(@TempDir Path dir) throws Exception {
    byte[] licence = "the licence\n".getBytes();
    byte[] notice = "the notice\n".getBytes();
    JarMetadata metadata = new JarMetadata(licence, notice);
    Path bare = jar(dir.resolve("bare.jar"), null, null, null);
    Path badName = jar(dir.resolve("bad.jar"), licence, notice, "com.example.other");
    Path shaded =
        jar(
            dir.resolve("shaded.jar"),
            licence,
            "the notice\nbundled: x\n".getBytes(),
            "dev.writerfence.agent");

    assertThat(metadata.check(bare).problems())
        .hasSize(3)
        .anySatisfy(p -> assertThat(p).endsWith("META-INF/LICENSE is missing"))
        .anySatisfy(p -> assertThat(p).endsWith("META-INF/NOTICE is missing"))
        .anySatisfy(p -> assertThat(p).endsWith("the manifest has no Automatic-Module-Name"));
    assertThat(metadata.check(badName).problems())
        .singleElement()
        .asString()
        .contains("'com.example.other' is not a module name under dev.writerfence");
    assertThat(metadata.check(shaded).problems()).isEmpty();
    assertThat(metadata.check(shaded).moduleName()).hasValue("dev.writerfence.agent");
  }

  private static Path jar(Path file, byte[] licence, byte[] notice, String moduleName)
      throws Exception {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    if (moduleName != null) {
      manifest.getMainAttributes().putValue("Automatic-Module-Name", moduleName);
    }
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(file), manifest)) {
      if (licence != null) {
        out.putNextEntry(new ZipEntry("META-INF/LICENSE"));
        out.write(licence);
      }
      if (notice != null) {
        out.putNextEntry(new ZipEntry("META-INF/NOTICE"));
        out.write(notice);
      }
    }
    return file;
  }

  private static String text(JarFile jar, String entry) throws Exception {
    ZipEntry found = jar.getEntry(entry);
    assertThat(found).as(entry + " in " + jar.getName()).isNotNull();
    try (var in = jar.getInputStream(found)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<Path> jarsIn(Path target) throws Exception {
    List<Path> jars = new ArrayList<>();
    if (Files.isDirectory(target)) {
      try (DirectoryStream<Path> files = Files.newDirectoryStream(target, "*.jar")) {
        files.forEach(jars::add);
      }
    }
    jars.sort(null);
    return jars;
  }
}
