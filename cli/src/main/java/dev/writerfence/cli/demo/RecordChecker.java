package dev.writerfence.cli.demo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Checks the record of a run after the fact, on the recorded intervals (database clock), never by
 * timing:
 *
 * <ul>
 *   <li><b>overlaps</b>: no two critical sections overlap, not even by a microsecond;
 *   <li><b>token order</b>: ordered by start, fencing tokens strictly increase;
 *   <li><b>lease</b>: every section ran inside the lease whose token it carries (after its grant,
 *       before its expiry);
 *   <li><b>stamps</b>: every object in the bucket carries the fencing token and holder label of the
 *       last section that wrote its key, in its metadata and in its body, and no written object is
 *       missing.
 * </ul>
 */
public final class RecordChecker {
  /** How many violation messages a report keeps. */
  static final int MAX_EXAMPLES = 20;

  private RecordChecker() {}

  /**
   * @param sections every recorded critical section, in any order
   * @param objects the stamps read back from the bucket, by key
   * @return the counts of each kind of violation, with the first messages
   */
  public static CheckReport check(List<SectionRecord> sections, Map<String, ObjectStamp> objects) {
    Findings f = new Findings();
    List<SectionRecord> byStart = new ArrayList<>(sections);
    byStart.sort(
        Comparator.comparingLong(SectionRecord::startUs)
            .thenComparingLong(SectionRecord::endUs)
            .thenComparingLong(SectionRecord::token));

    int overlaps = 0;
    int tokenOrder = 0;
    int lease = 0;
    int handovers = 0;
    SectionRecord latestEnding = null; // the section with the greatest end so far
    SectionRecord previous = null;
    for (SectionRecord s : byStart) {
      if (s.endUs() < s.startUs()) {
        lease++;
        f.add("lease", s.describe() + " ends before it starts");
      }
      if (s.startUs() < s.leaseAcquiredUs() || s.endUs() >= s.leaseExpiresUs()) {
        lease++;
        f.add(
            "lease",
            s.describe()
                + " ran outside its lease, granted "
                + Micros.format(s.leaseAcquiredUs())
                + ", expiring "
                + Micros.format(s.leaseExpiresUs()));
      }
      if (latestEnding != null && s.startUs() <= latestEnding.endUs()) {
        overlaps++;
        f.add("overlap", s.describe() + " overlaps " + latestEnding.describe());
      }
      if (previous != null) {
        if (s.token() <= previous.token()) {
          tokenOrder++;
          f.add(
              "token order",
              s.describe() + " started after " + previous.describe() + " with a token not greater");
        }
        if (!Objects.equals(s.writer(), previous.writer())) {
          handovers++;
        }
      }
      if (latestEnding == null || s.endUs() > latestEnding.endUs()) {
        latestEnding = s;
      }
      previous = s;
    }

    // The last section to write each key: the latest started (ties: the higher token).
    Map<String, SectionRecord> lastWriter = new HashMap<>();
    for (SectionRecord s : byStart) {
      for (String key : s.keys()) {
        lastWriter.put(key, s);
      }
    }
    int stamps = 0;
    TreeSet<String> keys = new TreeSet<>(lastWriter.keySet());
    keys.addAll(objects.keySet());
    for (String key : keys) {
      SectionRecord last = lastWriter.get(key);
      ObjectStamp stamp = objects.get(key);
      String problem = stampProblem(key, last, stamp);
      if (problem != null) {
        stamps++;
        f.add("stamp", problem);
      }
    }
    return new CheckReport(
        sections.size(),
        objects.size(),
        overlaps,
        tokenOrder,
        lease,
        stamps,
        handovers,
        List.copyOf(f.examples));
  }

  private static String stampProblem(String key, SectionRecord last, ObjectStamp stamp) {
    if (last == null) {
      return "object '"
          + key
          + "' carries fencing token "
          + stamp.token()
          + " (holder "
          + stamp.holder()
          + ") but no recorded critical section wrote it";
    }
    if (stamp == null) {
      return "object '" + key + "' is missing from the bucket; last written by " + last.describe();
    }
    if (stamp.token() == null || stamp.token() != last.token()) {
      return "object '"
          + key
          + "' carries fencing token "
          + stamp.token()
          + " (holder "
          + stamp.holder()
          + "), but the last write to it was the "
          + last.describe();
    }
    if (!Objects.equals(stamp.holder(), last.writer())) {
      return "object '"
          + key
          + "' carries holder "
          + stamp.holder()
          + " with fencing token "
          + stamp.token()
          + ", but that token belongs to the "
          + last.describe();
    }
    if (!Objects.equals(stamp.bodyToken(), stamp.token())) {
      return "object '"
          + key
          + "' carries fencing token "
          + stamp.token()
          + " in its metadata but "
          + stamp.bodyToken()
          + " in its body: a torn write";
    }
    return null;
  }

  /** Violation messages, the first few of each kind. */
  private static final class Findings {
    private final List<String> examples = new ArrayList<>();

    void add(String kind, String message) {
      if (examples.size() < MAX_EXAMPLES) {
        examples.add(kind + ": " + message);
      }
    }
  }
}
