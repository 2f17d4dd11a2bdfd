package dev.writerfence.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.weaving.ForkedWeavingContract;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The weaving contract, woven at load time: each expectation runs in a JVM started with {@code
 * -javaagent:aspectjweaver.jar}. Its class path leaves out this module's test classes (where ajc
 * wove the contract's writers at compile time), so the writers come unwoven from the test-support
 * jar, and puts first an application {@code META-INF/aop.xml} that weaves their package.
 */
class LoadTimeWeavingContractTest extends ForkedWeavingContract {
  private static final String AOP_XML =
      """
      <aspectj>
        <weaver>
          <include within="dev.writerfence.testing.weaving..*"/>
        </weaver>
      </aspectj>
      """;

  @Override
  protected String jdbcUrl() {
    return EmbeddedDatabase.get().jdbcUrl();
  }

  @Override
  protected String user() {
    return "postgres";
  }

  @Override
  protected List<String> jvmOptions() {
    return weaverOptions();
  }

  /** The JVM options of load-time weaving: the weaver as the agent. */
  static List<String> weaverOptions() {
    String weaver = System.getProperty("aspectjweaver.jar");
    assertThat(weaver).as("system property aspectjweaver.jar").isNotBlank().doesNotContain("${");
    return List.of(
        "-javaagent:" + weaver,
        "-Daj.weaving.verbose=false",
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
  }

  @Override
  protected String classPath() {
    return unwovenClassPath(super.classPath());
  }

  /**
   * @param classPath the tests' class path
   * @return it without this module's test classes, where ajc wove the writers, and with the
   *     application's aop.xml first
   */
  static String unwovenClassPath(String classPath) {
    List<String> entries = new ArrayList<>();
    entries.add(applicationAopXml().toString());
    Path testClasses = Path.of("target", "test-classes").toAbsolutePath();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (!Path.of(entry).toAbsolutePath().equals(testClasses)) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static Path applicationAopXml() {
    try {
      Path dir = Files.createTempDirectory("writer-fence-ltw-contract-");
      Files.createDirectories(dir.resolve("META-INF"));
      Files.writeString(dir.resolve("META-INF/aop.xml"), AOP_XML);
      dir.toFile().deleteOnExit();
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
