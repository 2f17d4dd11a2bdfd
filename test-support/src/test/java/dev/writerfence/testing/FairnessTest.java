package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The fairness arithmetic on records made up so that every number has one right answer. */
class FairnessTest {
  private static final Instant T0 = Instant.parse("2026-12-02T12:00:00Z");

  /** A section of {@code writer} from {@code from} to {@code to} milliseconds after T0. */
  private static Section section(String writer, long token, long from, long to) {
    return new Section(writer, token, T0.plusMillis(from), T0.plusMillis(to));
  }

  private static List<Duration> millis(long... values) {
    return Arrays.stream(values).mapToObj(Duration::ofMillis).toList();
  }

  @Test
  void jainsIndexIsOneWhenAllWinAlikeAndOneOverNWhenOneWinsEverything() {
    assertThat(Fairness.jainIndex(List.of(7L, 7L, 7L))).isEqualTo(1.0);
    assertThat(Fairness.jainIndex(List.of(9L, 0L, 0L))).isCloseTo(1.0 / 3, within(1e-12));
    // (1+2+3)^2 / (3 * (1+4+9)) = 36/42
    assertThat(Fairness.jainIndex(List.of(1L, 2L, 3L))).isCloseTo(36.0 / 42, within(1e-12));
    assertThat(Fairness.jainIndex(List.of(0L, 0L))).as("nobody won").isZero();
  }

  @Test
  void jainsIndexRefusesNoSharesAndNegativeOnes() {
    assertThatThrownBy(() -> Fairness.jainIndex(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one writer");
    assertThatThrownBy(() -> Fairness.jainIndex(List.of(3L, -1L)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("share -1 is not allowed: 0 or more");
  }

  @Test
  void percentilesAreNearestRankSoEachIsAMeasuredValue() {
    List<Duration> hundred =
        IntStream.rangeClosed(1, 100).map(i -> 101 - i).mapToObj(Duration::ofMillis).toList();
    Percentiles p = Percentiles.of(hundred); // given from the longest down
    assertThat(p.count()).isEqualTo(100);
    assertThat(p.p50()).isEqualTo(Duration.ofMillis(50));
    assertThat(p.p99()).isEqualTo(Duration.ofMillis(99));
    assertThat(p.max()).isEqualTo(Duration.ofMillis(100));

    Percentiles three = Percentiles.of(millis(30, 10, 20));
    assertThat(three.p50()).isEqualTo(Duration.ofMillis(20));
    assertThat(three.p99()).as("ceil(0.99 * 3) = 3rd").isEqualTo(Duration.ofMillis(30));

    assertThat(Percentiles.of(List.of())).isEqualTo(Percentiles.NONE);
    assertThat(Percentiles.millis(Duration.ofNanos(1_500_000))).isEqualTo(1.5);
  }

  @Test
  void reportCountsWinsPerWriterWithTheWritersThatNeverWon() {
    List<Section> sections =
        List.of(
            section("b/0", 2, 20, 25),
            section("a/1", 1, 10, 15),
            section("a/0", 3, 30, 35),
            section("a/1", 4, 36, 40));

    FairnessReport report =
        Fairness.report(
            List.of("a", "b", "c"),
            sections,
            s -> s.writer().substring(0, 1), // the process of the thread
            millis(4, 1, 2, 3),
            5);

    assertThat(report.winsPerWriter())
        .containsExactly(Map.entry("a", 3L), Map.entry("b", 1L), Map.entry("c", 0L));
    assertThat(report.everyWriterWon()).isFalse();
    assertThat(report.writersWithoutWin()).containsExactly("c");
    assertThat(report.fewestWins()).isZero();
    assertThat(report.mostWins()).isEqualTo(3);
    // (3+1+0)^2 / (3 * (9+1+0)) = 16/30
    assertThat(report.jainIndex()).isCloseTo(16.0 / 30, within(1e-12));
    assertThat(report.busyGiveUps()).isEqualTo(5);
    assertThat(report.timeToWin().p50()).isEqualTo(Duration.ofMillis(2));
    assertThat(report.timeToWin().max()).isEqualTo(Duration.ofMillis(4));
    // a -> b at 15..20, b -> a at 25..30; a/0 -> a/1 is the same writer, no hand-over
    assertThat(report.handovers()).isEqualTo(2);
    assertThat(report.handoverGap().count()).isEqualTo(2);
    assertThat(report.handoverGap().p50()).isEqualTo(Duration.ofMillis(5));
    assertThat(report.summary())
        .isEqualTo(
            "2 of 3 writers won (0 to 3 each), Jain's index 0.533, busy give-ups 5, time to win"
                + " p50 2.0 ms p99 4.0 ms, 2 hand-overs (gap p50 5.0 ms)");
  }

  @Test
  void anOverlapAtAHandOverCountsAsNoGapNotANegativeOne() {
    FairnessReport report =
        Fairness.report(
            List.of("a", "b"),
            List.of(section("a", 1, 10, 20), section("b", 2, 15, 30)),
            Section::writer,
            List.of(),
            0);

    assertThat(report.handovers()).isEqualTo(1);
    assertThat(report.handoverGap().max()).isEqualTo(Duration.ZERO);
    assertThat(report.everyWriterWon()).isTrue();
    assertThat(report.jainIndex()).isEqualTo(1.0);
    assertThat(report.timeToWin()).isEqualTo(Percentiles.NONE);
  }

  @Test
  void badInputIsRefusedNamingIt() {
    List<Section> one = List.of(section("x", 1, 0, 1));
    assertThatThrownBy(() -> Fairness.report(List.of(), one, Section::writer, List.of(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one writer");
    assertThatThrownBy(() -> Fairness.report(List.of("a", "a"), one, Section::writer, List.of(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("writer 'a' is listed twice");
    assertThatThrownBy(() -> Fairness.report(List.of("a"), one, Section::writer, List.of(), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("belongs to writer 'x', which is not one of [a]");
    assertThatThrownBy(() -> Fairness.report(List.of("x"), one, Section::writer, List.of(), -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("busy give-ups -1 is not allowed: 0 or more");
  }

  @Test
  void aCpuLoadSpinsInAProcessOfItsOwnUntilClosed() {
    ProcessHandle process;
    try (CpuLoad load = CpuLoad.start(2)) {
      assertThat(load.threads()).isEqualTo(2);
      process = ProcessHandle.of(load.pid()).orElseThrow();
      await("the spinning threads use the CPU")
          .atMost(Duration.ofSeconds(60))
          .until(
              () ->
                  process
                          .info()
                          .totalCpuDuration()
                          .orElse(Duration.ZERO)
                          .compareTo(Duration.ofSeconds(1))
                      > 0);
    }
    assertThat(process.isAlive()).isFalse();
    assertThatThrownBy(() -> CpuLoad.start(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threads 0 is not allowed: 1 to 64");
  }
}
