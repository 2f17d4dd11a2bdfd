package dev.writerfence.cli.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentAttachmentTest {
  private final AgentAttachment log =
      new AgentAttachment(Path.of("/opt/wf/agent.jar"), "log", Path.of("/tmp/r.json"));

  @Test
  void optionsGoRightAfterAJavaLauncherAndTheEnvironmentStaysAsItIs() {
    Map<String, String> env = new HashMap<>(Map.of("JAVA_TOOL_OPTIONS", "-Xss2m"));

    List<String> command = log.attach(List.of("/usr/bin/java", "-jar", "app.jar", "x"), env);

    assertThat(command)
        .containsExactly(
            "/usr/bin/java",
            "-javaagent:/opt/wf/agent.jar",
            "-Dwriter-fence.audit.mode=log",
            "-Dwriter-fence.audit.report=/tmp/r.json",
            "-jar",
            "app.jar",
            "x");
    assertThat(env).containsExactly(Map.entry("JAVA_TOOL_OPTIONS", "-Xss2m"));
  }

  /** One agent fences and audits: a second -javaagent would judge every write twice. */
  @Test
  void aCommandThatAttachesTheAgentItselfGetsOnlyTheAuditSettings() {
    List<String> command =
        log.attach(
            List.of(
                "java",
                "-javaagent:agent/target/writer-fence-agent.jar=config=fence.properties",
                "-jar",
                "legacy.jar"),
            new HashMap<>());

    assertThat(command)
        .containsExactly(
            "java",
            "-Dwriter-fence.audit.mode=log",
            "-Dwriter-fence.audit.report=/tmp/r.json",
            "-javaagent:agent/target/writer-fence-agent.jar=config=fence.properties",
            "-jar",
            "legacy.jar");
    assertThat(
            AgentAttachment.attachesTheAgent(
                List.of("java", "-jar", "app.jar", "-javaagent:writer-fence-agent.jar")))
        .as("an argument of the application, not an option of the JVM")
        .isFalse();
  }

  @Test
  void anyOtherCommandGetsThemAfterTheJavaToolOptionsItHas() {
    Map<String, String> env = new HashMap<>(Map.of("JAVA_TOOL_OPTIONS", " -Xss2m "));

    List<String> command = log.attach(List.of("./run-sync.sh", "--all"), env);

    assertThat(command).containsExactly("./run-sync.sh", "--all");
    assertThat(env.get("JAVA_TOOL_OPTIONS"))
        .isEqualTo(
            "-Xss2m -javaagent:/opt/wf/agent.jar -Dwriter-fence.audit.mode=log"
                + " -Dwriter-fence.audit.report=/tmp/r.json");
  }

  @Test
  void withoutJavaToolOptionsTheyAreTheWholeValue() {
    Map<String, String> env = new HashMap<>();

    new AgentAttachment(Path.of("/a.jar"), "enforce", Path.of("/r.json"))
        .attach(List.of("mvn", "exec:java"), env);

    assertThat(env.get("JAVA_TOOL_OPTIONS"))
        .isEqualTo(
            "-javaagent:/a.jar -Dwriter-fence.audit.mode=enforce"
                + " -Dwriter-fence.audit.report=/r.json");
  }

  @Test
  void aPathWithSpacesCannotGoThroughJavaToolOptions() {
    AgentAttachment spaced =
        new AgentAttachment(Path.of("/my agents/agent.jar"), "log", Path.of("/tmp/r.json"));

    assertThat(spaced.attach(List.of("java", "-version"), new HashMap<>()))
        .contains("-javaagent:/my agents/agent.jar");
    assertThatThrownBy(() -> spaced.attach(List.of("./run.sh"), new HashMap<>()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'-javaagent:/my agents/agent.jar' holds white space")
        .hasMessageContaining("start the command with java");
  }
}
