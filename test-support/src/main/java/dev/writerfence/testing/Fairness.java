package dev.writerfence.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The fairness of a run, reckoned from its record beside the exclusion that {@link SectionChecker}
 * checks: how often each writer won, Jain's index over those wins, how long a win took, how often
 * the fence passed from one writer to another and how long it lay idle then, and how many fenced
 * calls gave up busy. A writer here is whoever the caller says competes as one, usually a process
 * (its threads' sections mapped to it). This is the one owner of that arithmetic: the demo's record
 * check, the fault suite and the benchmarks report through it.
 *
 * <pre>{@code
 * FairnessReport fairness =
 *     Fairness.report(List.of("a", "b", "c"), sections, s -> processOf(s.writer()), waits, busy);
 * assertThat(fairness.everyWriterWon()).isTrue();
 * assertThat(fairness.jainIndex()).isGreaterThanOrEqualTo(0.95);
 * }</pre>
 */
public final class Fairness {
  private static final Comparator<Section> BY_ENTRY =
      Comparator.comparing(Section::enteredAt)
          .thenComparing(Section::exitedAt)
          .thenComparingLong(Section::fencingToken);

  private Fairness() {}

  /**
   * Jain's fairness index, {@code (Σx)² / (n · Σx²)}: 1 when every share is the same, {@code 1/n}
   * when one takes everything.
   *
   * @param shares each writer's share (its wins), one per writer, writers with none included; at
   *     least one, none negative
   * @return the index, from {@code 1/n} to 1; 0 when every share is 0 (a run where nobody won shows
   *     no fairness)
   * @throws IllegalArgumentException when there is no share or one is negative
   */
  public static double jainIndex(Collection<Long> shares) {
    if (shares.isEmpty()) {
      throw new IllegalArgumentException(
          "Jain's index needs at least one writer's share: none given");
    }
    double sum = 0;
    double squares = 0;
    for (long x : shares) {
      if (x < 0) {
        throw new IllegalArgumentException("share " + x + " is not allowed: 0 or more");
      }
      sum += x;
      squares += (double) x * x;
    }
    return squares == 0 ? 0 : sum * sum / (shares.size() * squares);
  }

  /**
   * Reckons the fairness of a run.
   *
   * @param writers every writer that took part, in the order to report them; a writer without a
   *     section counts with 0 wins; not empty, no repeats
   * @param sections every recorded critical section, in any order; each one is a win of its writer
   * @param writerOf the writer a section belongs to (for example {@link Section#writer}, or the
   *     process of the thread it names); it must answer one of {@code writers}
   * @param timesToWin for each win, the time from its call's first acquire attempt to the grant
   *     (empty when the run did not measure it)
   * @param busyGiveUps fenced calls that gave up busy after their whole retry budget; 0 or more
   * @return the report
   * @throws IllegalArgumentException when {@code writers} is empty or repeats one, a section
   *     belongs to a writer not listed, or {@code busyGiveUps} is negative
   */
  public static FairnessReport report(
      List<String> writers,
      Collection<Section> sections,
      Function<Section, String> writerOf,
      Collection<Duration> timesToWin,
      long busyGiveUps) {
    Objects.requireNonNull(writerOf, "writerOf");
    if (writers.isEmpty()) {
      throw new IllegalArgumentException("a fairness report needs at least one writer: none given");
    }
    if (busyGiveUps < 0) {
      throw new IllegalArgumentException(
          "busy give-ups " + busyGiveUps + " is not allowed: 0 or more");
    }
    Map<String, Long> wins = new LinkedHashMap<>();
    for (String writer : writers) {
      if (wins.put(Objects.requireNonNull(writer, "writer"), 0L) != null) {
        throw new IllegalArgumentException("writer '" + writer + "' is listed twice");
      }
    }
    List<Section> byEntry = new ArrayList<>(sections);
    byEntry.sort(BY_ENTRY);
    int handovers = 0;
    List<Duration> gaps = new ArrayList<>();
    Section previous = null;
    String previousWriter = null;
    for (Section s : byEntry) {
      String writer = writerOf.apply(s);
      if (writer == null || !wins.containsKey(writer)) {
        throw new IllegalArgumentException(
            s + " belongs to writer '" + writer + "', which is not one of " + writers);
      }
      wins.merge(writer, 1L, Long::sum);
      if (previous != null && !writer.equals(previousWriter)) {
        handovers++;
        // An overlap is the checker's to report; here it counts as no gap at all.
        Duration gap = Duration.between(previous.exitedAt(), s.enteredAt());
        gaps.add(gap.isNegative() ? Duration.ZERO : gap);
      }
      previous = s;
      previousWriter = writer;
    }
    return new FairnessReport(
        wins,
        jainIndex(wins.values()),
        busyGiveUps,
        Percentiles.of(timesToWin),
        handovers,
        Percentiles.of(gaps));
  }
}
