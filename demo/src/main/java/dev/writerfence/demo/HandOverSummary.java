package dev.writerfence.demo;

import dev.writerfence.testing.FairnessReport;
import dev.writerfence.testing.Percentiles;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * How the fence passed from one writer process to the next (ADR 65): how many writer processes
 * learnt of a release by a notification and how many polled, each as it reported at its end, and
 * the hand-over gap measured on the record. Each writer is a process of its own with its own
 * listener, so each proves its mode for itself.
 *
 * @param modes writer processes per mode, in a fixed order ({@link #MODES}, then {@value
 *     #UNREPORTED}); only modes at least one writer reported
 * @param writers writer processes in all
 * @param gap from one writer process's section end to the next one's section start
 */
record HandOverSummary(Map<String, Integer> modes, int writers, Percentiles gap) {
  /** The modes {@code WriterFence.queueWakeUp()} answers, in the order the summary names them. */
  static final List<String> MODES = List.of("notified", "polled", "pending", "off");

  /** A writer that wrote no summary, or one without its mode. */
  static final String UNREPORTED = "unreported";

  HandOverSummary {
    modes = Map.copyOf(Objects.requireNonNull(modes, "modes"));
    Objects.requireNonNull(gap, "gap");
  }

  /**
   * @param results every writer process's result
   * @param fairness the run's fairness, which measured the hand-over gap
   * @return the writers' modes and the gap
   */
  static HandOverSummary of(List<WriterResult> results, FairnessReport fairness) {
    Map<String, Integer> modes = new LinkedHashMap<>();
    for (WriterResult r : results) {
      String mode = r.handOver() == null ? UNREPORTED : r.handOver();
      modes.merge(mode, 1, Integer::sum);
    }
    return new HandOverSummary(modes, results.size(), fairness.handoverGap());
  }

  /**
   * @return the mode most writers share, {@code notified} on a tie; {@code unreported} without
   *     writers
   */
  String leadingMode() {
    return ordered().stream()
        .reduce((a, b) -> modes.get(b) > modes.get(a) ? b : a)
        .orElse(UNREPORTED);
  }

  /**
   * @return writer processes that reported {@code mode}
   */
  int count(String mode) {
    return modes.getOrDefault(mode, 0);
  }

  /**
   * @return for example {@code hand-over: notified in 3/3 writers, gap p50 1.2 ms p99 4.0 ms}, or
   *     with the other modes in brackets, {@code hand-over: notified in 2/3 writers (polled 1),
   *     ...}
   */
  String line() {
    String lead = leadingMode();
    String others =
        ordered().stream()
            .filter(m -> !m.equals(lead))
            .map(m -> m + " " + modes.get(m))
            .collect(Collectors.joining(", "));
    return String.format(
        Locale.ROOT,
        "hand-over: %s in %d/%d writers%s, gap p50 %.1f ms p99 %.1f ms",
        lead,
        count(lead),
        writers,
        others.isEmpty() ? "" : " (" + others + ")",
        Percentiles.millis(gap.p50()),
        Percentiles.millis(gap.p99()));
  }

  /** The reported modes, known ones first in {@link #MODES} order, then any other by name. */
  private List<String> ordered() {
    return modes.keySet().stream()
        .sorted(
            (a, b) -> {
              int ia = MODES.indexOf(a);
              int ib = MODES.indexOf(b);
              ia = ia < 0 ? MODES.size() : ia;
              ib = ib < 0 ? MODES.size() : ib;
              return ia != ib ? Integer.compare(ia, ib) : a.compareTo(b);
            })
        .toList();
  }
}
