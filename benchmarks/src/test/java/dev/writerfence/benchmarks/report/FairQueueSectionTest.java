package dev.writerfence.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.writerfence.benchmarks.queue.FairQueueRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
        0,
        Map.of("notified", wins.size()));
  }

  private static FairQueueRun.Idle idle(double perSecond, double headPollsPerSecond) {
    return new FairQueueRun.Idle(
        3,
        5,
        (long) (perSecond * 5),
        perSecond,
        250,
        "pg_stat_statements",
        perSecond / 3,
        599,
        (long) (headPollsPerSecond * 5),
        headPollsPerSecond,
        Map.of("notified", 3));
  }

  private List<String[]> targets(FairQueueRun.Phase direct, FairQueueRun.Phase bouncer)
      throws Exception {
    return targets(
        direct,
        bouncer,
        idle(2.4, 0.8),
        List.of(
            new FairQueueRun.DeadHead("SIGSTOP", 900, "notified"),
            new FairQueueRun.DeadHead("SIGKILL", 700, "notified")),
        0);
  }

  private List<String[]> targets(
      FairQueueRun.Phase direct,
      FairQueueRun.Phase bouncer,
      FairQueueRun.Idle idle,
      List<FairQueueRun.DeadHead> deadHeads,
      long rowsAfter)
      throws Exception {
    FairQueueRun.Result result =
        new FairQueueRun.Result(
            new FairQueueRun.Settings(3, 5, 5, 10_000),
            10,
            5,
            phase("single", 90, List.of(450L), 1, 0, 0),
            direct,
            bouncer,
            idle,
            phase("direct", 85, List.of(200L, 200L), 0.99, 300, 1.5),
            deadHeads,
            rowsAfter);
    new ObjectMapper().writeValue(dir.resolve(FairQueueRun.FILE).toFile(), result);
    List<String[]> targets = new ArrayList<>();
    StringBuilder md = new StringBuilder();
    FairQueueSection.write(dir, md, targets);
    assertThat(md)
        .contains("| direct | 3 |")
        .contains("| direct | 2 |")
        .contains("statements/s on the server (pg_stat_statements")
        .contains("Dead head (SIGKILL)")
        .doesNotContain("NaN");
    return targets;
  }

  @Test
  void aFairRunPassesEveryTarget() throws Exception {
    List<String[]> targets =
        targets(
            phase("direct", 80, List.of(150L, 150L, 151L), 0.99, 300, 1.8),
            phase("bouncer", 75, List.of(150L, 150L, 151L), 0.99, 300, 12));

    assertThat(targets).hasSize(14).allSatisfy(t -> assertThat(t[3]).startsWith("pass"));
  }

  @Test
  void issue27sWaitingTargetsMissWithTheirReasons() throws Exception {
    List<String[]> targets =
        targets(
            phase("direct", 80, List.of(150L, 150L, 151L), 0.99, 300, 2.5),
            phase("bouncer", 75, List.of(150L, 150L, 151L), 0.99, 300, 12.5),
            idle(6, 3),
            List.of(
                new FairQueueRun.DeadHead("SIGSTOP", 4900, "notified"),
                new FairQueueRun.DeadHead("SIGKILL", 300, "notified")),
            2);

    assertThat(targets)
        .filteredOn(t -> t[0].contains("gap p50, direct"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).startsWith("**miss** (every process notified"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("behind PgBouncer"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).startsWith("**miss**"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("per idle waiter"))
        .singleElement()
        .satisfies(t -> assertThat(t[2]).startsWith("2.00 (6.00/s in all"))
        .satisfies(t -> assertThat(t[3]).startsWith("**miss**"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("polls/s of the head"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).startsWith("**miss**"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("dead head (SIGSTOP)"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).startsWith("**miss** (the released lease stays"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("dead head (SIGKILL)"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).isEqualTo("pass"));
    assertThat(targets)
        .filteredOn(t -> t[0].contains("`queue_status` rows"))
        .singleElement()
        .satisfies(t -> assertThat(t[2]).isEqualTo("2"))
        .satisfies(t -> assertThat(t[3]).startsWith("**miss**"));
  }

  @Test
  void aRunBeforeTheWaitingFiguresWereMeasuredSaysSo() throws Exception {
    Files.writeString(
        dir.resolve(FairQueueRun.FILE),
        "{\"settings\":{\"contenders\":64,\"sectionMicros\":10000},\"pollIntervalMs\":10,"
            + "\"single\":{\"sectionsPerSecond\":80},\"direct\":{\"contenders\":64,"
            + "\"sectionsPerSecond\":40,\"handovers\":10,\"handoverGapP50Ms\":3},"
            + "\"idle\":{\"waiters\":64,\"perSecond\":200}}");
    List<String[]> targets = new ArrayList<>();
    FairQueueSection.write(dir, new StringBuilder(), targets);

    assertThat(targets)
        .filteredOn(t -> t[3].startsWith("not measured"))
        .extracting(t -> t[0])
        .anySatisfy(w -> assertThat(w).contains("fewer processes"))
        .anySatisfy(w -> assertThat(w).contains("dead head"))
        .anySatisfy(w -> assertThat(w).contains("`queue_status` rows"))
        .anySatisfy(w -> assertThat(w).contains("per idle waiter"));
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
        .filteredOn(t -> t[0].contains("3 processes: critical sections/s"))
        .singleElement()
        .satisfies(t -> assertThat(t[3]).startsWith("**miss**"));
  }
}
