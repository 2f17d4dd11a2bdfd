package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditSectionTest {
  @TempDir Path dir;

  /** A JMH sample-mode result of {@code AuditBenchmark}: each method with its median. */
  private void rows(String file, double median, String... methods) throws Exception {
    Files.writeString(
        dir.resolve(file),
        Stream.of(methods)
            .map(
                m ->
                    String.format(
                        Locale.ROOT,
                        "{\"benchmark\": \"x.AuditBenchmark.%s\", \"threads\": 1,"
                            + " \"primaryMetric\": {\"score\": %.1f, \"scoreUnit\": \"ns/op\","
                            + " \"scorePercentiles\": {\"0.0\": %.1f, \"50.0\": %.1f}}}",
                        m,
                        median,
                        median / 2,
                        median))
            .collect(Collectors.joining(",", "[", "]")));
  }

  private String report() throws Exception {
    StringBuilder md = new StringBuilder();
    AuditSection.write(dir, "", md, new ArrayList<>());
    return md.toString();
  }

  @Test
  void enforceRowsStandBesideTheLogOnesWithWhatEnforceAdds() throws Exception {
    String[] all = {"outside", "fencedWrite", "unfencedWrite", "gateOutside", "gateFencedWrite"};
    rows("audit-noagent.json", 100, all);
    rows("audit-agent.json", 200, all);
    rows("audit-enforce.json", 1200, "outside", "gateOutside", "gateFencedWrite");

    String md = report();

    assertThat(md).contains("Enforce mode (a third fork, `audit.mode=enforce`");
    assertThat(md)
        .contains(
            "| not audited (`FileOutputStream` outside `audit.paths`), gate alone"
                + " | 50.0, 100.0 | 100.0, 200.0 | 600.0, 1,200 | 1,000 |");
    assertThat(md)
        .contains(
            "| not audited (`FileOutputStream` outside `audit.paths`) | 50.0, 100.0 | 100.0,"
                + " 200.0 | 600.0, 1,200 | 1,000 |");
    // No enforce row for a method that fork did not run (it refuses unfenced writes).
    assertThat(md).doesNotContain("| a write, no fence, call site already reported, gate alone");
  }

  @Test
  void noEnforceTableWhenThatForkDidNotRun() throws Exception {
    rows("audit-noagent.json", 100, "outside", "gateOutside");
    rows("audit-agent.json", 200, "outside", "gateOutside");

    assertThat(report())
        .doesNotContain("Enforce mode")
        .contains("| not audited (`FileOutputStream` outside `audit.paths`) | 50.0, 100.0 |");
  }
}
