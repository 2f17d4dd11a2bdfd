package dev.writerfence.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.annotation.processing.FencedMethodIndexer;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * C37 without the writer-fence agent: the start-up check that {@code ProcessFence.set} runs finds
 * load-time weaving that does not reach a {@code @WriterFenced} method. The fixture under {@code
 * src/test/fixtures/c37} is compiled here by javac alone, with {@link FencedMethodIndexer} writing
 * its index, and run in a JVM of its own with AspectJ's weaver attached, on a class path with or
 * without this module's aspect jar and with one weaver configuration or another.
 */
class StartUpWeavingCheckTest {
  private static final String MAIN = "org.example.unwoven.UploadMain";
  private static final String PROPERTY_ROUTE = "org.example.unwoven.PropertyRouteMain";
  private static final String DECLARED_BUT_MISSING =
      "an aop.xml declares dev.writerfence.aspectj.WriterFencedAspect, but its class cannot be"
          + " loaded: writer-fence-aspectj is not on the class path";
  private static final String DECLARING_AOP_XML =
      "<aspectj><aspects><aspect name=\"dev.writerfence.aspectj.WriterFencedAspect\"/></aspects>"
          + "</aspectj>";
  private static final String METHOD = "org.example.unwoven.Uploader#upload(java.lang.String)";
  private static final String NOT_DECLARED =
      "no aop.xml it reads declares dev.writerfence.aspectj.WriterFencedAspect";

  @TempDir static Path fixture;
  private static String weaver;

  @BeforeAll
  static void compileTheFixture() throws IOException {
    weaver = System.getProperty("aspectjweaver.jar");
    assertThat(weaver).as("system property aspectjweaver.jar").isNotBlank().doesNotContain("${");
    Path sources = Path.of("src/test/fixtures/c37");
    List<String> files;
    try (Stream<Path> walk = Files.walk(sources)) {
      files = walk.filter(p -> p.toString().endsWith(".java")).map(Path::toString).toList();
    }
    List<String> args = new ArrayList<>(List.of("-d", fixture.toString(), "-cp", testClassPath()));
    args.addAll(List.of("-processor", FencedMethodIndexer.class.getName(), "--release", "17"));
    args.addAll(files);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertThat(javac.run(null, null, null, args.toArray(String[]::new))).isZero();
    Path meta = Files.createDirectories(fixture.resolve("META-INF"));
    try (Stream<Path> xml = Files.list(sources.resolve("META-INF"))) {
      for (Path p : xml.toList()) {
        Files.copy(p, meta.resolve(p.getFileName()));
      }
    }
    assertThat(fixture.resolve(FencedMethodIndexer.INDEX)).hasContent(METHOD);
  }

  @Test
  void C37_theStartUpCheckRefusesTheFenceWhenTheAspectJarIsMissing() throws Exception {
    Run run = run(false, List.of());

    assertThat(run.exit()).as(run.toString()).isEqualTo(3);
    assertThat(run.stdout()).containsExactly("REFUSED");
    assertThat(run.stderr())
        .contains(NOT_DECLARED)
        .contains("@WriterFenced " + METHOD + " would run unfenced")
        .contains("writer-fence.weaving.check=warn");
  }

  @Test
  void C37_anAopXmlThatLeavesTheAspectOutIsRefusedAtStartUp() throws Exception {
    Run run = run(true, List.of(configuration("META-INF/no-aspect-aop.xml")));

    assertThat(run.exit()).as(run.toString()).isEqualTo(3);
    assertThat(run.stderr())
        .contains(NOT_DECLARED)
        .contains("@WriterFenced " + METHOD + " would run unfenced");
  }

  @Test
  void C37_aWriterOutsideTheWeaversIncludeIsNamedAtStartUp() throws Exception {
    Run run = run(true, List.of(configuration("META-INF/other-packages-aop.xml")));

    assertThat(run.exit()).as(run.toString()).isEqualTo(3);
    assertThat(run.stderr())
        .doesNotContain(NOT_DECLARED)
        .contains(
            "@WriterFenced "
                + METHOD
                + " would run unfenced: its class org.example.unwoven.Uploader"
                + " was not woven (outside the weaver's <include>");
  }

  @Test
  void C37_warnLogsEveryGapAndTheMethodRunsAsConfigured() throws Exception {
    Run run =
        run(
            true,
            List.of(
                configuration("META-INF/no-aspect-aop.xml"), "-Dwriter-fence.weaving.check=warn"));

    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).containsExactly("SET", "RESULT held=false");
    assertThat(run.stderr()).contains("WARN").contains(NOT_DECLARED).contains(METHOD);
  }

  @Test
  void offSkipsTheCheck() throws Exception {
    Run run =
        run(
            true,
            List.of(
                configuration("META-INF/no-aspect-aop.xml"), "-Dwriter-fence.weaving.check=off"));

    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).containsExactly("SET", "RESULT held=false");
    assertThat(run.stderr()).doesNotContain(NOT_DECLARED).doesNotContain(METHOD);
  }

  @Test
  void C37_aWovenWriterPassesTheCheckAndRunsFenced() throws Exception {
    Run run = run(true, List.of());

    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).containsExactly("SET", "RESULT held=true");
    assertThat(run.stderr()).doesNotContain("would run unfenced");
  }

  @Test
  void staleIndexLinesAreLoggedAndNeverRefuseAWovenApplication() throws Exception {
    Path other =
        extraClassPathEntry(
            "stale-index",
            FencedMethodIndexer.INDEX,
            "org.example.gone.Writer#put()\norg.example.unwoven.Uploader#nosuch(int)\n");

    Run run = run(true, List.of(), other);

    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).containsExactly("SET", "RESULT held=true");
    assertThat(run.stderr())
        .contains("names what this JVM does not have")
        .contains("org.example.gone.Writer#put(): its class cannot be loaded")
        .contains(
            "org.example.unwoven.Uploader#nosuch(int): org.example.unwoven.Uploader declares"
                + " no such method");
  }

  @Test
  void anAopXmlThatIsNotXmlIsAGapNamingTheFile() throws Exception {
    Path broken = extraClassPathEntry("broken-aop", "META-INF/aop.xml", "<aspectj><weaver>");

    Run run = run(true, List.of(), broken);

    assertThat(run.exit()).as(run.toString()).isEqualTo(3);
    assertThat(run.stderr())
        .contains("the weaver's configuration file:" + broken.resolve("META-INF/aop.xml"))
        .contains("is not readable XML");
  }

  @Test
  void aBadSettingIsRefusedNamingItsValue() throws Exception {
    Run run = run(true, List.of("-Dwriter-fence.weaving.check=loud"));

    assertThat(run.exit()).as(run.toString()).isNotZero();
    assertThat(run.stdout()).doesNotContain("SET");
    assertThat(run.stderr()).contains("weaving.check 'loud' is not allowed: fail, warn or off");
  }

  @Test
  void anAopXmlDeclaringTheAspectWhoseJarIsMissingIsRefusedAtSet() throws Exception {
    Path declaring = extraClassPathEntry("declaring-aop", "META-INF/aop.xml", DECLARING_AOP_XML);

    Run run = run(false, List.of(), declaring);

    assertThat(run.exit()).as(run.toString()).isEqualTo(3);
    assertThat(run.stdout()).containsExactly("REFUSED");
    assertThat(run.stderr()).contains(DECLARED_BUT_MISSING).doesNotContain(NOT_DECLARED);
  }

  @Test
  void theSystemPropertyRouteNamesTheMissingAspectAtItsStartUpCall() throws Exception {
    Path declaring = extraClassPathEntry("declaring-aop-d", "META-INF/aop.xml", DECLARING_AOP_XML);

    Run run = runMain(PROPERTY_ROUTE, false, propertyRoute(), declaring);

    assertThat(run.exit()).as(run.toString()).isEqualTo(3);
    assertThat(run.stdout()).containsExactly("REFUSED");
    assertThat(run.stderr())
        .contains(DECLARED_BUT_MISSING)
        .contains("@WriterFenced " + METHOD + " would run unfenced");
  }

  @Test
  void theSystemPropertyRouteWithTheAspectPassesAndRunsFenced() throws Exception {
    Run run = runMain(PROPERTY_ROUTE, true, propertyRoute());

    assertThat(run.exit()).as(run.toString()).isZero();
    assertThat(run.stdout()).containsExactly("CHECKED", "RESULT held=true");
    assertThat(run.stderr()).doesNotContain("would run unfenced");
  }

  /** The fence from system properties, as the aspect's {@code ProcessFence.get} builds it. */
  private static List<String> propertyRoute() {
    return List.of(
        "-Dwriter-fence.datasource.url=" + EmbeddedDatabase.get().jdbcUrl(),
        "-Dwriter-fence.datasource.username=postgres");
  }

  /** What the fixture printed and how it ended. */
  private record Run(int exit, List<String> stdout, String stderr) {}

  private static String configuration(String resource) {
    return "-Dorg.aspectj.weaver.loadtime.configuration=" + resource;
  }

  /**
   * Runs the fixture with the weaver attached, on the fixture's classes and the test class path
   * without this module's test classes (their own aop.xml), and without its aspect jar unless
   * {@code withAspect}.
   */
  private static Run run(boolean withAspect, List<String> options, Path... before)
      throws Exception {
    return runMain(MAIN, withAspect, options, before);
  }

  /** As {@link #run}, with another main class of the fixture; its arguments as {@link #run}'s. */
  private static Run runMain(String main, boolean withAspect, List<String> options, Path... before)
      throws Exception {
    List<String> jvm = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    jvm.add("-javaagent:" + weaver);
    jvm.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    jvm.addAll(options);
    String classPath =
        Stream.concat(
                Stream.concat(
                    Arrays.stream(before).map(Path::toString), Stream.of(fixture.toString())),
                Arrays.stream(testClassPath().split(File.pathSeparator))
                    .filter(e -> withAspect || !isThisModulesJar(e)))
            .collect(Collectors.joining(File.pathSeparator));
    try (ForkedJvm app = ForkedJvm.start(jvm, classPath, main, arguments(main))) {
      int exit = app.awaitExit(Duration.ofMinutes(2));
      return new Run(exit, app.output(), app.stderr());
    }
  }

  private static String[] arguments(String main) {
    String bucket = TestFence.uniqueId("c37-startup");
    return main.equals(MAIN)
        ? new String[] {EmbeddedDatabase.get().jdbcUrl(), bucket}
        : new String[] {bucket};
  }

  /** A class-path directory of its own holding one resource. */
  private static Path extraClassPathEntry(String name, String resource, String text)
      throws IOException {
    Path root = fixture.getParent().resolve(fixture.getFileName() + "-" + name);
    Path file = root.resolve(resource);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
    return root;
  }

  /** The test class path less this module's test classes, whose aop.xml weaves other packages. */
  private static String testClassPath() {
    return Arrays.stream(ForkedJvm.testClassPath().split(File.pathSeparator))
        .filter(e -> !Path.of(e).endsWith(Path.of("target", "test-classes")))
        .collect(Collectors.joining(File.pathSeparator));
  }

  /** This module's main classes: the aspect and the aop.xml that declares it. */
  private static boolean isThisModulesJar(String entry) {
    return Path.of(entry).toAbsolutePath().equals(Path.of("target", "classes").toAbsolutePath());
  }
}
