package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentSectionTest {
  @TempDir Path dir;

  /** A start-up result as {@code AgentStartup} writes it. */
  private void startup(String file, String java, long without, long with, long cpuWith)
      throws Exception {
    Files.writeString(
        dir.resolve(file),
        String.format(
            Locale.ROOT,
            "{\"withoutAgentMillis\":%d,\"withAgentMillis\":%d,\"costMillis\":%d,"
                + "\"cpuWithoutAgentMillis\":200,\"cpuWithAgentMillis\":%d,\"runs\":5,"
                + "\"output\":\"wall `x`\\nline two\",\"java\":\"%s\"}",
            without,
            with,
            with - without,
            cpuWith,
            java));
  }

  private List<String[]> targets(StringBuilder md) throws Exception {
    List<String[]> targets = new ArrayList<>();
    AgentSection.startup(dir, md, targets);
    return targets;
  }

  @Test
  void eachJdkIsARowJudgedOnWallWithCpuBesideAndAMissNamesByteBuddysBuild() throws Exception {
    startup("agent-startup.json", "17", 150, 870, 1_200);
    startup("agent-startup-25.json", "25", 160, 460, 700);
    StringBuilder md = new StringBuilder();

    List<String[]> targets = targets(md);

    assertThat(targets).hasSize(2);
    assertThat(targets.get(0))
        .containsExactly(
            AgentSection.STARTUP_TARGET + " (Java 17)",
            "≤ 300 ms wall",
            "+720 ms wall, +1000 ms CPU (median of 5 paired runs)",
            "**miss** (420 ms over: Byte Buddy's build when the fenced class loads, about 1 s of"
                + " CPU; agent/README.md)");
    assertThat(targets.get(1)[0]).isEqualTo(AgentSection.STARTUP_TARGET + " (Temurin 25)");
    assertThat(targets.get(1)[2]).startsWith("+300 ms wall, +500 ms CPU");
    assertThat(targets.get(1)[3]).as("exactly the bound passes").isEqualTo("pass");
    assertThat(md.toString())
        .contains("Start-up on Java 17")
        .contains("Start-up on Temurin 25")
        .contains("**720 ms** added")
        .contains("Its output: `wall 'x' line two`");
  }

  @Test
  void withoutTemurin25ItsRowIsAGapAndWithoutTheHarnessTheTargetIsNotMeasured() throws Exception {
    startup("agent-startup.json", "17", 150, 550, 600);

    List<String[]> targets = targets(new StringBuilder());

    assertThat(targets.get(0)[3])
        .isEqualTo(
            "**miss** (100 ms over: Byte Buddy's build when the"
                + " fenced class loads, about 1 s of CPU; agent/README.md)");
    assertThat(targets.get(1))
        .containsExactly(
            AgentSection.STARTUP_TARGET + " (Temurin 25)",
            "≤ 300 ms wall",
            "gap: no Temurin 25 in this run",
            "not measured in this run");

    Files.delete(dir.resolve("agent-startup.json"));
    StringBuilder md = new StringBuilder();
    List<String[]> none = targets(md);

    assertThat(none).hasSize(1);
    assertThat(none.get(0)[2]).isEqualTo("gap: harness not built");
    assertThat(none.get(0)[3]).isEqualTo("not measured in this run");
    assertThat(md.toString()).contains("Start-up: gap");
  }
}
