package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar as the launcher runs it ({@code java -jar target/writer-fence-cli.jar}), after
 * {@code package}: its manifest names the version and the class path, and that class path is the
 * ops commands' alone.
 */
class CliJarIT {
  private static final Path JAR = Path.of(System.getProperty("writer-fence.cli.jar"));

  /** The most the ops CLI's runtime class path (its jar and every jar it names) may weigh. */
  static final long MAX_CLASS_PATH_BYTES = 20_000_000;

  /**
   * Packages of the demo's servers and clients, which the ops commands never use: S3Proxy (and the
   * jclouds and Jetty it brings), the AWS SDK, embedded PostgreSQL, AspectJ.
   */
  static final List<String> DEMO_ONLY_PACKAGES =
      List.of(
          "org/gaul/",
          "org/jclouds/",
          "org/eclipse/jetty/",
          "software/amazon/awssdk/",
          "io/zonky/",
          "org/aspectj/");

  @Test
  void versionIsTheProjectVersionFromTheManifest() throws Exception {
    String version = System.getProperty("writer-fence.version");

    Result result = java("--version");

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output().strip()).isEqualTo("writer-fence " + version);
  }

  @Test
  void badInputFromThePackagedJarIsOneLineAndExitStatus2() throws Exception {
    Result result = java("status");

    assertThat(result.exitCode()).isEqualTo(2);
    assertThat(result.output().lines())
        .containsExactly(
            "writer-fence: missing required option: '--jdbc-url=URL'",
            "Try './writer-fence status --help'");
  }

  @Test
  void theRuntimeClassPathIsAtMost20MbAndHoldsNoneOfTheDemosServers() throws IOException {
    List<Path> classPath = runtimeClassPath();

    assertThat(classPath).hasSizeGreaterThan(1).allSatisfy(p -> assertThat(p).isRegularFile());
    long bytes = 0;
    for (Path jar : classPath) {
      bytes += Files.size(jar);
    }
    assertThat(bytes).as("bytes of %s", classPath).isLessThanOrEqualTo(MAX_CLASS_PATH_BYTES);
    for (Path jar : classPath) {
      try (JarFile file = new JarFile(jar.toFile())) {
        assertThat(file.stream().map(JarEntry::getName))
            .as("entries of %s", jar)
            .noneMatch(name -> DEMO_ONLY_PACKAGES.stream().anyMatch(name::startsWith));
      }
    }
  }

  @Test
  void statusRunsFromThePackagedJarAgainstARealDatabase() throws Exception {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    List<String> connect =
        List.of("--jdbc-url", db.jdbcUrl(), "--user", "postgres", "--schema", "cli_jar");
    Result install = java(concat(List.of("schema", "install"), connect));
    assertThat(install.exitCode()).as(install.output()).isZero();
    String name = FenceNames.random("cli-jar");
    try (WriterFence fence = WriterFence.builder(db.dataSource()).schema("cli_jar").build()) {
      // status runs while the lease is held, and shows it
      Result status =
          fence.call(
              FenceRequest.builder(name).holderLabel("cli-jar-it").build(),
              () -> java(concat(List.of("status"), connect)));

      assertThat(status.exitCode()).as(status.output()).isZero();
      assertThat(status.output())
          .containsPattern(
              Pattern.quote(name)
                  + " +"
                  + Pattern.quote("cli-jar-it@" + HolderLabel.instance())
                  + " +"
                  + FencingTokens.first(1)
                  + " +"
                  + Pattern.quote(FencingTokens.describe(FencingTokens.first(1)))
                  + " .* held");
    }
  }

  /** The jar and the jars its manifest's {@code Class-Path} names: what {@code java -jar} loads. */
  private static List<Path> runtimeClassPath() throws IOException {
    List<Path> classPath = new ArrayList<>(List.of(JAR));
    try (JarFile jar = new JarFile(JAR.toFile())) {
      String named = jar.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
      assertThat(named).as("Class-Path of %s", JAR).isNotBlank();
      for (String entry : named.trim().split(" +")) {
        classPath.add(JAR.resolveSibling(entry));
      }
    }
    return classPath;
  }

  private static String[] concat(List<String> first, List<String> second) {
    List<String> all = new ArrayList<>(first);
    all.addAll(second);
    return all.toArray(String[]::new);
  }

  private record Result(int exitCode, String output) {}

  private static Result java(String... args) throws IOException, InterruptedException {
    assertThat(JAR).isRegularFile();
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>(List.of(java.toString(), "-jar", JAR.toString()));
    command.addAll(List.of(args));
    Path output = Files.createTempFile("writer-fence-cli-it", ".txt");
    try {
      Process process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      if (!process.waitFor(60, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError("java -jar did not exit within 60 s: " + command);
      }
      return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
