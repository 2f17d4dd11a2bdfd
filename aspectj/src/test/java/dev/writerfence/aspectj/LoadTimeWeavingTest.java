package dev.writerfence.aspectj;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.testing.EmbeddedDatabase;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The aspect woven at load time: a JVM of its own, started with {@code
 * -javaagent:aspectjweaver.jar}, runs {@code ltw.LtwMain}, whose classes ajc never touched. The
 * aspect comes from this module's {@code META-INF/aop.xml}; the test's own {@code META-INF/aop.xml}
 * limits weaving to the {@code ltw} package, as a user's would.
 */
class LoadTimeWeavingTest {
  private static final String MAIN = "dev.writerfence.aspectj.ltw.LtwMain";
  private static Path weaverJar;

  @BeforeAll
  static void findWeaver() {
    String path = System.getProperty("aspectjweaver.jar");
    assertThat(path)
        .as("system property aspectjweaver.jar (set by the surefire configuration)")
        .isNotBlank()
        .doesNotContain("${");
    weaverJar = Path.of(path);
    assertThat(weaverJar).isRegularFile();
  }

  @Test
  void C12_oneAcquireAndOneReleasePerCall() throws Exception {
    String bucket = TestFence.uniqueId("c12-ltw");
    String name = "corpus:" + bucket;

    Forked forked = runMain(true, bucket, 3);

    assertThat(forked.results())
        .containsExactly(
            "RESULT call=1 acquired=1 released=1 bodyRuns=1 adviceFrames=1 held=true",
            "RESULT call=2 acquired=2 released=2 bodyRuns=2 adviceFrames=1 held=true",
            "RESULT call=3 acquired=3 released=3 bodyRuns=3 adviceFrames=1 held=true");
    // Server side: three acquisitions of the name, and the row is free again.
    TestFence.LeaseRow row = TestFence.leaseRow(name).orElseThrow();
    assertThat(FencingTokens.counter(row.fencingToken())).isEqualTo(3);
    assertThat(row.held()).isFalse();
    // The annotation's holder, with the forked JVM's host and pid: the instance that held.
    assertThat(row.holderLabel())
        .isEqualTo("ltw-writer@" + HolderLabel.host() + ":" + forked.pid());
  }

  @Test
  void withoutTheWeaverAgentTheFixtureRunsUnfenced() throws Exception {
    // The control: the fixture is not woven at compile time, so the fence above came from the
    // agent.
    String bucket = TestFence.uniqueId("ltw-control");

    Forked forked = runMain(false, bucket, 1);

    assertThat(forked.results())
        .containsExactly(
            "RESULT call=1 acquired=0 released=0 bodyRuns=1 adviceFrames=0 held=false");
    assertThat(TestFence.leaseRow("corpus:" + bucket)).isEmpty();
  }

  /** What a forked JVM printed ({@code RESULT} lines) and its process id. */
  private record Forked(List<String> results, long pid) {}

  /** Runs {@link #MAIN} in a new JVM and returns its {@code RESULT} lines and pid. */
  private static Forked runMain(boolean withAgent, String bucket, int calls)
      throws IOException, InterruptedException {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    if (withAgent) {
      command.add("-javaagent:" + weaverJar);
    }
    command.add("-Daj.weaving.verbose=false");
    command.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(MAIN);
    command.add(EmbeddedDatabase.get().jdbcUrl());
    command.add(bucket);
    command.add(Integer.toString(calls));

    File output = Files.createTempFile("writer-fence-ltw-", ".out").toFile();
    output.deleteOnExit();
    Process process =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output).start();
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("the forked JVM did not finish within 60 s: " + read(output));
    }
    String out = read(output);
    assertThat(process.exitValue()).as("exit status; output:%n%s", out).isZero();
    return new Forked(out.lines().filter(l -> l.startsWith("RESULT ")).toList(), process.pid());
  }

  private static String read(File file) throws IOException {
    return Files.readString(file.toPath(), StandardCharsets.UTF_8);
  }
}
