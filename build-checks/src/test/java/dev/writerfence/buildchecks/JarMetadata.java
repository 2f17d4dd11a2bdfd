package dev.writerfence.buildchecks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import javax.lang.model.SourceVersion;

/**
 * What every jar of the project carries: writer-fence's LICENSE and NOTICE in META-INF, and an
 * {@code Automatic-Module-Name} in its manifest under the project's root package, so that a modular
 * application can {@code requires} it by a stable name.
 */
final class JarMetadata {
  static final String ROOT_PACKAGE = "dev.writerfence";

  private final byte[] licence;
  private final byte[] notice;

  /**
   * @param licence the bytes of the repository's LICENSE
   * @param notice the bytes of the repository's NOTICE
   */
  JarMetadata(byte[] licence, byte[] notice) {
    this.licence = licence.clone();
    this.notice = notice.clone();
  }

  /** One jar's module name (empty when it has none) and what is wrong with it. */
  record Report(Path jar, Optional<String> moduleName, List<String> problems) {}

  /**
   * @param jar a jar file
   * @return its module name and its problems, each naming the jar; no problems when it is right
   * @throws IOException when the jar cannot be read
   */
  Report check(Path jar) throws IOException {
    List<String> problems = new ArrayList<>();
    try (JarFile file = new JarFile(jar.toFile())) {
      byte[] ownLicence = read(file, "META-INF/LICENSE");
      if (ownLicence == null || !Arrays.equals(ownLicence, licence)) {
        problems.add(
            jar + ": META-INF/LICENSE " + (ownLicence == null ? "is missing" : "is not LICENSE"));
      }
      // A shaded jar appends its bundled libraries' NOTICE files after writer-fence's own.
      byte[] ownNotice = read(file, "META-INF/NOTICE");
      if (ownNotice == null || !startsWith(ownNotice, notice)) {
        problems.add(
            jar
                + ": META-INF/NOTICE "
                + (ownNotice == null ? "is missing" : "does not begin with NOTICE"));
      }
      Manifest manifest = file.getManifest();
      String name =
          manifest == null ? null : manifest.getMainAttributes().getValue("Automatic-Module-Name");
      if (name == null) {
        problems.add(jar + ": the manifest has no Automatic-Module-Name");
      } else if (!SourceVersion.isName(name) || !isUnderRootPackage(name)) {
        problems.add(
            jar
                + ": Automatic-Module-Name '"
                + name
                + "' is not a module name under "
                + ROOT_PACKAGE
                + " (set writer-fence.module-name in the module's POM to its root package)");
      }
      return new Report(jar, Optional.ofNullable(name), problems);
    }
  }

  private static boolean isUnderRootPackage(String name) {
    return name.equals(ROOT_PACKAGE) || name.startsWith(ROOT_PACKAGE + ".");
  }

  private static byte[] read(JarFile file, String entry) throws IOException {
    ZipEntry found = file.getEntry(entry);
    if (found == null) {
      return null;
    }
    try (InputStream in = file.getInputStream(found)) {
      return in.readAllBytes();
    }
  }

  private static boolean startsWith(byte[] bytes, byte[] prefix) {
    return bytes.length >= prefix.length
        && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
  }
}
