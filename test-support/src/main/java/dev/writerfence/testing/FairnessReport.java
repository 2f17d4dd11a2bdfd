package dev.writerfence.testing;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The fairness of a run, as {@link Fairness#report} reckons it.
 *
 * @param winsPerWriter each writer's wins (critical sections), in the order the writers were given,
 *     writers without a win included with 0
 * @param jainIndex Jain's index over {@code winsPerWriter}: 1 when all won alike, {@code 1/n} when
 *     one won everything, 0 when nobody won
 * @param busyGiveUps fenced calls that gave up busy after their whole retry budget
 * @param timeToWin from a call's first acquire attempt to its grant, over every win that measured
 *     it ({@link Percentiles#NONE} when none did)
 * @param handovers how often, in order of entry, a section's writer differs from the previous one's
 * @param handoverGap at each hand-over, from the previous writer's section end to the next one's
 *     section start (it takes in the release, the next writer's grant and its entry)
 */
public record FairnessReport(
    Map<String, Long> winsPerWriter,
    double jainIndex,
    long busyGiveUps,
    Percentiles timeToWin,
    int handovers,
    Percentiles handoverGap) {

  /** Copies the wins, keeping their order. */
  public FairnessReport {
    winsPerWriter = Collections.unmodifiableMap(new LinkedHashMap<>(winsPerWriter));
    Objects.requireNonNull(timeToWin, "timeToWin");
    Objects.requireNonNull(handoverGap, "handoverGap");
  }

  /**
   * @return whether every writer won at least once
   */
  public boolean everyWriterWon() {
    return writersWithoutWin().isEmpty();
  }

  /**
   * @return the writers that never won, in the order given
   */
  public List<String> writersWithoutWin() {
    return winsPerWriter.entrySet().stream()
        .filter(e -> e.getValue() == 0)
        .map(Map.Entry::getKey)
        .toList();
  }

  /**
   * @return the fewest wins of any writer
   */
  public long fewestWins() {
    return winsPerWriter.values().stream().mapToLong(Long::longValue).min().orElse(0);
  }

  /**
   * @return the most wins of any writer
   */
  public long mostWins() {
    return winsPerWriter.values().stream().mapToLong(Long::longValue).max().orElse(0);
  }

  /**
   * @return one line for a report, for example {@code 3 of 3 writers won (118 to 125 each), Jain's
   *     index 0.998, busy give-ups 0, time to win p50 41.2 ms p99 97.0 ms, 352 hand-overs (gap p50
   *     1.3 ms)}
   */
  public String summary() {
    return String.format(
        Locale.ROOT,
        "%d of %d writers won (%d to %d each), Jain's index %.3f, busy give-ups %d, time to win"
            + " p50 %.1f ms p99 %.1f ms, %d hand-overs (gap p50 %.1f ms)",
        winsPerWriter.size() - writersWithoutWin().size(),
        winsPerWriter.size(),
        fewestWins(),
        mostWins(),
        jainIndex,
        busyGiveUps,
        Percentiles.millis(timeToWin.p50()),
        Percentiles.millis(timeToWin.p99()),
        handovers,
        Percentiles.millis(handoverGap.p50()));
  }
}
