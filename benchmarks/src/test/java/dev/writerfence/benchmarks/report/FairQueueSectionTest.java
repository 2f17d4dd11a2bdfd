package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FairQueueSectionTest {
  @TempDir Path dir;

  private static FairQueueRun.Phase phase(
      String route, double perSecond, List<Long> wins, double jain, int handovers, double gap) {
    return new FairQueueRun.Phase(
        route,
        wins.size(),
        5,
        100,
        perSecond,
        10.2,
        wins,
        jain,
        !wins.contains(0L),
        0,
        0,
        30,
        90,
        100,
        handovers,
        gap,
        gap * 2,
        0,
        0);
  }

  private List<String[]> targets(FairQueueRun.Phase direct, FairQueueRun.Phase bouncer)
      throws Exception {
    FairQueueRun.Result result =
        new FairQueueRun.Result(
            new FairQueueRun.Settings(3, 5, 5, 10_000),
            10,
            5,
            phase("single", 90, List.of(450L), 1, 0, 0),
            direct,
            bouncer,
            new FairQueueRun.Idle(3, 5, 1000, 200, 250));
    new ObjectMapper().writeValue(dir.resolve(FairQueueRun.FILE).toFile(), result);
    List<String[]> targets = new ArrayList<>();
    StringBuilder md = new StringBuilder();
    FairQueueSection.write(dir, md, targets);
    assertThat(md)
        .contains("| direct | 3 |")
        .contains("made 200.0 transactions/s")
        .doesNotContain("NaN");
    return targets;
  }

  @Test
  void aFairRunPassesEveryTarget() throws Exception {
    List<String[]> targets =
        targets(
            phase("direct", 80, List.of(150L, 150L, 151L), 0.99, 300, 2.1),
            phase("bouncer", 75, List.of(150L, 150L, 151L), 0.99, 300, 12));

    assertThat(targets).hasSize(8).allSatisfy(t -> assertThat(t[3]).startsWith("pass"));
  }

  @Test
  void aWriterThatNeverWonAndARunWithoutHandOversMiss() throws Exception {
    List<String[]> targets =
        targets(
            phase("direct", 60, List.of(300L, 0L, 1L), 0.34, 1, 90),
            phase("bouncer", 75, List.of(451L, 0L, 0L), 0.33, 0, 0));

    assertThat(targets)
        .filteredOn(t -> t[0].contains("every contender wins"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).isEqualTo("**miss** (1 never won)"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("behind PgBouncer"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).isEqualTo("**miss** (no hand-over between processes)"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("sections/s"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).startsWith("**miss**"));
  }
}
