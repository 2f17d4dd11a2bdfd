package dev.writerfence.testing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Checks a record of critical sections after the fact, on the recorded times, never by timing:
 *
 * <ul>
 *   <li>{@link SectionReport.Kind#OVERLAP}: no section enters before every section that entered
 *       earlier has left, not even at the same instant;
 *   <li>{@link SectionReport.Kind#TOKEN_ORDER}: in order of entry, fencing tokens strictly increase
 *       (with {@link #checkHolds}, a writer's consecutive sections may share one lease's token);
 *   <li>{@link SectionReport.Kind#NO_TOKEN}: every section ran under a fencing token (above 0);
 *   <li>{@link SectionReport.Kind#OUTSIDE_LEASE}: a section whose lease times are known ran after
 *       the grant and left before the expiry;
 *   <li>{@link SectionReport.Kind#MALFORMED}: no section leaves before it enters.
 * </ul>
 *
 * <p>The sections may come from threads and processes alike, as long as their times come from one
 * clock. This is the one overlap checker of the project: every module's tests and the demo use it.
 */
public final class SectionChecker {
  private static final Comparator<Section> BY_ENTRY =
      Comparator.comparing(Section::enteredAt)
          .thenComparing(Section::exitedAt)
          .thenComparingLong(Section::fencingToken);

  private final boolean holdsSpanSections;

  private SectionChecker(boolean holdsSpanSections) {
    this.holdsSpanSections = holdsSpanSections;
  }

  /**
   * Checks a record where every section ran under a lease of its own.
   *
   * @param sections every recorded section, in any order; never {@code null}
   * @return what the record shows
   */
  public static SectionReport check(Collection<Section> sections) {
    return new SectionChecker(false).run(sections);
  }

  /**
   * Checks a record where one hold may span several sections of its writer (nested or repeated
   * writes inside one fenced call): a fencing token may repeat for consecutive sections of the same
   * writer, never across writers and never after a later token.
   *
   * @param sections every recorded section, in any order; never {@code null}
   * @return what the record shows
   */
  public static SectionReport checkHolds(Collection<Section> sections) {
    return new SectionChecker(true).run(sections);
  }

  private SectionReport run(Collection<Section> sections) {
    List<Section> byEntry = new ArrayList<>(sections);
    byEntry.sort(BY_ENTRY);
    List<SectionReport.Violation> found = new ArrayList<>();
    int handovers = 0;
    // Compared with the latest exit so far, not the previous section's: a short section inside a
    // long one leaves first, and the next one may still enter inside the long one.
    Section latestExit = null;
    Section previous = null;
    for (Section s : byEntry) {
      if (s.exitedAt().isBefore(s.enteredAt())) {
        found.add(violation(SectionReport.Kind.MALFORMED, s + " leaves before it enters"));
      }
      if (s.fencingToken() <= 0) {
        found.add(violation(SectionReport.Kind.NO_TOKEN, s + " ran without a fencing token"));
      }
      if (s.knowsItsLease()
          && (s.enteredAt().isBefore(s.leaseAcquiredAt())
              || !s.exitedAt().isBefore(s.leaseExpiresAt()))) {
        found.add(
            violation(
                SectionReport.Kind.OUTSIDE_LEASE,
                s
                    + " ran outside its lease, granted "
                    + s.leaseAcquiredAt()
                    + ", expiring "
                    + s.leaseExpiresAt()));
      }
      if (latestExit != null && !s.enteredAt().isAfter(latestExit.exitedAt())) {
        found.add(violation(SectionReport.Kind.OVERLAP, s + " overlaps " + latestExit));
      }
      if (previous != null) {
        if (!tokenFollows(previous, s)) {
          found.add(
              violation(
                  SectionReport.Kind.TOKEN_ORDER,
                  s + " entered after " + previous + " with a token not greater"));
        }
        if (!previous.writer().equals(s.writer())) {
          handovers++;
        }
      }
      if (latestExit == null || s.exitedAt().isAfter(latestExit.exitedAt())) {
        latestExit = s;
      }
      previous = s;
    }
    return new SectionReport(byEntry.size(), handovers, found);
  }

  private boolean tokenFollows(Section previous, Section next) {
    if (next.fencingToken() > previous.fencingToken()) {
      return true;
    }
    return holdsSpanSections
        && next.fencingToken() == previous.fencingToken()
        && Objects.equals(next.writer(), previous.writer());
  }

  private static SectionReport.Violation violation(SectionReport.Kind kind, String message) {
    return new SectionReport.Violation(kind, message);
  }
}
