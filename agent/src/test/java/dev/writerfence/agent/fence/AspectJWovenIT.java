package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FencingTokens;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application that weaves {@code @WriterFenced} with AspectJ at load time, run with the agent
 * too: the methods AspectJ wove are fenced once, by the aspect, and the annotated methods it did
 * not weave are fenced by the agent.
 */
class AspectJWovenIT {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final int CALLS = 3;

  @TempDir Path dir;

  @Test
  void C12_methodWovenByTheAspectIsNotFencedAgainByTheAgent() {
    String wovenFence = FenceNames.random("woven");
    String unwovenFence = FenceNames.random("unwoven");
    Path config = LegacyJvm.config(dir, LegacyJvm.dataSource(DB).toArray(String[]::new));
    List<String> options = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    // The agent first on the command line: AspectJ's weaver still transforms before it, since
    // the agent's transformer is the retransforming kind, which the JVM always calls last.
    options.add("-javaagent:" + LegacyJvm.AGENT_JAR + "=config=" + config);
    options.add("-javaagent:" + onClassPath("aspectjweaver"));
    options.add(
        "-Dorg.aspectj.weaver.loadtime.configuration=META-INF/aop.xml;META-INF/aop-fence-it.xml");

    try (ForkedJvm app =
        ForkedJvm.start(
            options,
            classPathWithoutAgentClasses(),
            AnnotatedApp.class.getName(),
            DB.jdbcUrl(),
            wovenFence,
            unwovenFence,
            Integer.toString(CALLS))) {
      for (int call = 1; call <= CALLS; call++) {
        assertThat(app.awaitLine("woven", Duration.ofSeconds(90)))
            .as("one acquire per call, by the aspect; one hold inside")
            .isEqualTo("woven acquired=" + call + " holds=1");
        assertThat(app.awaitLine("unwoven", Duration.ofSeconds(30)))
            .as("fenced by the agent: held inside, no acquire by the application's fence")
            .isEqualTo("unwoven acquired=" + call + " holds=1");
      }
      assertThat(app.awaitLine("broken", Duration.ofSeconds(30)))
          .as("an annotation the agent cannot use fails the call; the method never runs")
          .startsWith("broken refused ")
          .contains("ttlSeconds -5")
          .endsWith(" bodyRuns=0");
      assertThat(app.awaitExit(Duration.ofSeconds(30))).isZero();
    }
    assertThat(fencingToken(wovenFence)).as("one acquire per call in all").isEqualTo(CALLS);
    assertThat(fencingToken(unwovenFence)).isEqualTo(CALLS);
  }

  private static long fencingToken(String fence) {
    return FencingTokens.counter(
        DB.queryValue(
            Long.class,
            "SELECT fencing_token FROM writer_fence.lease WHERE fence_name = ?",
            fence));
  }

  private static String onClassPath(String artifact) {
    return Arrays.stream(ForkedJvm.testClassPath().split(File.pathSeparator))
        .filter(e -> Path.of(e).getFileName().toString().startsWith(artifact))
        .findFirst()
        .orElseThrow(() -> new AssertionError(artifact + " is not on the test class path"));
  }

  /**
   * The test class path without this module's own classes: the agent must come from its jar, as it
   * does for users, not from {@code target/classes} ahead of it on the class path.
   */
  private static String classPathWithoutAgentClasses() {
    Path own = Path.of("target", "classes").toAbsolutePath();
    return Arrays.stream(ForkedJvm.testClassPath().split(File.pathSeparator))
        .filter(e -> !Path.of(e).toAbsolutePath().equals(own))
        .collect(Collectors.joining(File.pathSeparator));
  }
}
