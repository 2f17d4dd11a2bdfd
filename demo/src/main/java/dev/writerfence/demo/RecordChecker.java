package dev.writerfence.demo;

import dev.writerfence.testing.Fairness;
import dev.writerfence.testing.FairnessReport;
import dev.writerfence.testing.Section;
import dev.writerfence.testing.SectionChecker;
import dev.writerfence.testing.SectionReport;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;

/**
 * Checks the record of a run after the fact, on the recorded intervals (database clock), never by
 * timing. The sections go through the project's one overlap checker, {@link SectionChecker}; the
 * stamps are the demo's own:
 *
 * <ul>
 *   <li><b>overlaps</b>: no two critical sections overlap, not even by a microsecond;
 *   <li><b>token order</b>: ordered by start, fencing tokens strictly increase;
 *   <li><b>lease</b>: every section ran inside the lease whose token it carries (after its grant,
 *       before its expiry), and ends after it starts;
 *   <li><b>stamps</b>: every object in the bucket carries the fencing token and holder label of the
 *       last section that wrote its key, in its metadata and in its body, and no written object is
 *       missing.
 * </ul>
 */
public final class RecordChecker {
  /** How many violation messages a report keeps. */
  static final int MAX_EXAMPLES = 20;

  /** The kinds of violation; each message starts with its kind's name. */
  private enum Kind {
    OVERLAP("overlap"),
    TOKEN_ORDER("token order"),
    LEASE("lease"),
    STAMP("stamp");

    final String label;

    Kind(String label) {
      this.label = label;
    }
  }

  private RecordChecker() {}

  /**
   * @param sections every recorded critical section, in any order
   * @param objects the stamps read back from the bucket, by key
   * @return the counts of each kind of violation, with the first messages
   */
  public static CheckReport check(List<SectionRecord> sections, Map<String, ObjectStamp> objects) {
    List<SectionRecord> byStart = new ArrayList<>(sections);
    byStart.sort(
        Comparator.comparingLong(SectionRecord::startUs)
            .thenComparingLong(SectionRecord::endUs)
            .thenComparingLong(SectionRecord::token));
    Findings findings = new Findings();
    int handovers = checkSections(byStart, findings);
    checkStamps(byStart, objects, findings);
    return new CheckReport(
        sections.size(),
        objects.size(),
        findings.count(Kind.OVERLAP),
        findings.count(Kind.TOKEN_ORDER),
        findings.count(Kind.LEASE),
        findings.count(Kind.STAMP),
        handovers,
        List.copyOf(findings.examples));
  }

  /**
   * Checks the sections with {@link SectionChecker} and counts what it finds by the demo's kinds.
   *
   * @param byStart the sections ordered by start
   * @return how often consecutive sections belong to different writers
   */
  private static int checkSections(List<SectionRecord> byStart, Findings findings) {
    SectionReport report =
        SectionChecker.check(byStart.stream().map(RecordChecker::section).toList());
    for (SectionReport.Violation v : report.violations()) {
      Kind kind =
          switch (v.kind()) {
            case OVERLAP -> Kind.OVERLAP;
            case TOKEN_ORDER, NO_TOKEN -> Kind.TOKEN_ORDER;
            case OUTSIDE_LEASE, MALFORMED -> Kind.LEASE;
          };
      findings.add(kind, v.message());
    }
    return report.handovers();
  }

  /**
   * The fairness of a run: every writer process is one writer, each section one of its wins, each
   * section's wait its time to win, and the busy give-ups those its summary counted.
   *
   * @param results every writer process, in launch order
   * @return what {@link Fairness#report} reckons
   */
  static FairnessReport fairness(List<WriterResult> results) {
    List<SectionRecord> sections = results.stream().flatMap(r -> r.sections().stream()).toList();
    return Fairness.report(
        results.stream().map(WriterResult::writer).toList(),
        sections.stream().map(RecordChecker::section).toList(),
        Section::writer,
        sections.stream().map(s -> Duration.ofNanos(s.waitUs() * 1000)).toList(),
        results.stream().mapToLong(WriterResult::busy).sum());
  }

  private static Section section(SectionRecord s) {
    return new Section(
        s.writer(),
        s.token(),
        instant(s.startUs()),
        instant(s.endUs()),
        instant(s.leaseAcquiredUs()),
        instant(s.leaseExpiresUs()));
  }

  private static Instant instant(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }

  /** Checks every key that a section wrote or the bucket holds against its last writer. */
  private static void checkStamps(
      List<SectionRecord> byStart, Map<String, ObjectStamp> objects, Findings findings) {
    // The last section to write each key: the latest started (ties: the higher token).
    Map<String, SectionRecord> lastWriter = new HashMap<>();
    for (SectionRecord s : byStart) {
      for (String key : s.keys()) {
        lastWriter.put(key, s);
      }
    }
    TreeSet<String> keys = new TreeSet<>(lastWriter.keySet());
    keys.addAll(objects.keySet());
    for (String key : keys) {
      String problem = stampProblem(key, lastWriter.get(key), objects.get(key));
      if (problem != null) {
        findings.add(Kind.STAMP, problem);
      }
    }
  }

  private static String stampProblem(String key, SectionRecord last, ObjectStamp stamp) {
    String object = "object '" + key + "'";
    if (last == null) {
      return object
          + " carries "
          + tokenAndHolder(stamp)
          + " but no recorded critical section wrote it";
    }
    if (stamp == null) {
      return object + " is missing from the bucket; last written by " + last.describe();
    }
    if (stamp.token() == null || stamp.token() != last.token()) {
      return object
          + " carries "
          + tokenAndHolder(stamp)
          + ", but the last write to it was the "
          + last.describe();
    }
    if (!Objects.equals(stamp.holder(), last.writer())) {
      return object
          + " carries holder "
          + stamp.holder()
          + " with fencing token "
          + stamp.token()
          + ", but that token belongs to the "
          + last.describe();
    }
    if (!Objects.equals(stamp.bodyToken(), stamp.token())) {
      return object
          + " carries fencing token "
          + stamp.token()
          + " in its metadata but "
          + stamp.bodyToken()
          + " in its body: a torn write";
    }
    return null;
  }

  /** For example {@code fencing token 7 (holder upload)}. */
  private static String tokenAndHolder(ObjectStamp stamp) {
    return "fencing token " + stamp.token() + " (holder " + stamp.holder() + ")";
  }

  /** Violations found so far: every one counted by kind, the first few kept as messages. */
  private static final class Findings {
    private final Map<Kind, Integer> counts = new EnumMap<>(Kind.class);
    private final List<String> examples = new ArrayList<>();

    void add(Kind kind, String message) {
      counts.merge(kind, 1, Integer::sum);
      if (examples.size() < MAX_EXAMPLES) {
        examples.add(kind.label + ": " + message);
      }
    }

    int count(Kind kind) {
      return counts.getOrDefault(kind, 0);
    }
  }
}
