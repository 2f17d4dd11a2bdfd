package dev.writerfence.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The summary's hand-over line, from the modes the writer processes report and the record. */
class HandOverSummaryTest {
  /**
   * Writer processes taking turns: each runs one section of 100 µs, the next starts 1, 2, 3 ... ms
   * after the previous ended, so the gaps are 1 to n-1 ms.
   */
  private static List<WriterResult> results(String... modes) {
    List<WriterResult> results = new ArrayList<>();
    long at = 0;
    for (int i = 0; i < modes.length; i++) {
      String writer = "w" + i;
      SectionRecord section =
          new SectionRecord(
              writer,
              100 + i,
              0,
              1L + i,
              at,
              at + 30_000_000,
              at,
              at + 100,
              List.of("k" + i),
              1,
              0,
              null);
      WriterSummary summary =
          modes[i] == null
              ? null
              : new WriterSummary(writer, 100 + i, 1, 1, 0, 0, 0, 0, 1, modes[i]);
      results.add(new WriterResult(writer, 100 + i, 0, summary, List.of(section)));
      at += 100 + (i + 1) * 1000L;
    }
    return results;
  }

  private static HandOverSummary summary(String... modes) {
    List<WriterResult> results = results(modes);
    return HandOverSummary.of(results, RecordChecker.fairness(results));
  }

  @Test
  void everyWriterNotified_theLineSaysSoWithTheGap() {
    String[] modes = new String[8];
    Arrays.fill(modes, "notified");

    HandOverSummary handOver = summary(modes);

    // gaps 1..7 ms
    assertThat(handOver.line())
        .isEqualTo("hand-over: notified in 8/8 writers, gap p50 4.0 ms p99 7.0 ms");
    assertThat(handOver.leadingMode()).isEqualTo("notified");
    assertThat(handOver.count("notified")).isEqualTo(8);
    assertThat(handOver.count("polled")).isZero();
  }

  @Test
  void mixedModes_theMostCommonLeadsAndTheOthersAreCounted() {
    HandOverSummary handOver = summary("polled", "notified", "polled", null, "pending");

    assertThat(handOver.line())
        .startsWith(
            "hand-over: polled in 2/5 writers (notified 1, pending 1, unreported 1), gap p50 ");
    assertThat(handOver.count(HandOverSummary.UNREPORTED)).isEqualTo(1);
  }

  @Test
  void aTieGoesToNotified() {
    assertThat(summary("polled", "notified").line())
        .startsWith("hand-over: notified in 1/2 writers (polled 1), gap p50 1.0 ms p99 1.0 ms");
  }

  @Test
  void oneWriterHasNoHandOverGap() {
    assertThat(summary("off").line())
        .isEqualTo("hand-over: off in 1/1 writers, gap p50 0.0 ms p99 0.0 ms");
  }
}
