package dev.writerfence.faults;

import dev.writerfence.testing.Section;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/** How long writers took to get back in after a fault, read from the record of their sections. */
final class Recovery {
  private Recovery() {}

  /**
   * @param sections sections in order of entry
   * @param faults times on the recording database's clock at which a fault struck
   * @return the longest time from a fault to the entry of the first section after it (zero when
   *     there were no faults)
   * @throws AssertionError when no section followed a fault
   */
  static Duration longest(List<Section> sections, List<Instant> faults) {
    Duration max = Duration.ZERO;
    for (Instant fault : faults) {
      Instant next =
          sections.stream()
              .map(Section::enteredAt)
              .filter(t -> t.isAfter(fault))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no section after the fault at " + fault));
      Duration recovery = Duration.between(fault, next);
      if (recovery.compareTo(max) > 0) {
        max = recovery;
      }
    }
    return max;
  }
}
