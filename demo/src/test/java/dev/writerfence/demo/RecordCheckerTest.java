package dev.writerfence.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The checker on hand-made records: it passes a clean record and finds each kind of fault. */
class RecordCheckerTest {
  private static final long T = 1_800_000_000_000_000L; // a database time, microseconds
  private static final long LEASE_US = 30_000_000L;

  /** A section of {@code writer} with {@code token}, running from {@code start} to {@code end}. */
  private static SectionRecord section(
      String writer, long token, long start, long end, String... keys) {
    return new SectionRecord(
        writer,
        100,
        0,
        token,
        T + start - 5,
        T + start - 5 + LEASE_US,
        T + start,
        T + end,
        List.of(keys),
        1,
        0,
        null);
  }

  /** The stamps a correct run leaves: each key stamped by the last section that wrote it. */
  private static Map<String, ObjectStamp> stampsOf(List<SectionRecord> sections) {
    Map<String, ObjectStamp> stamps = new TreeMap<>();
    List<SectionRecord> inOrder = new ArrayList<>(sections);
    inOrder.sort((a, b) -> Long.compare(a.startUs(), b.startUs()));
    for (SectionRecord s : inOrder) {
      for (String key : s.keys()) {
        stamps.put(key, new ObjectStamp(key, s.token(), s.writer(), s.token()));
      }
    }
    return stamps;
  }

  private static final List<SectionRecord> CLEAN =
      List.of(
          section("write-back", 1, 0, 100, "a", "b"),
          section("upload", 2, 150, 300, "b", "c"),
          section("pull_sync", 3, 301, 400, "a"),
          section("pull_sync", 4, 450, 460, "c"));

  @Test
  void fairnessCountsEachWriterProcessWithItsBusyGiveUpsAndWaits() {
    // CLEAN: write-back 1 section, upload 1, pull_sync 2; a fourth writer never acquired.
    List<WriterResult> results = new ArrayList<>();
    for (String writer : List.of("write-back", "upload", "pull_sync", "write-back-2")) {
      List<SectionRecord> own = CLEAN.stream().filter(s -> s.writer().equals(writer)).toList();
      WriterSummary summary =
          new WriterSummary(
              writer, 100, 1, own.size(), writer.equals("upload") ? 2 : 0, 0, 0, 0, 0, "notified");
      results.add(new WriterResult(writer, 100, 0, summary, own));
    }

    var fairness = RecordChecker.fairness(results);

    assertThat(fairness.winsPerWriter())
        .containsExactly(
            Map.entry("write-back", 1L),
            Map.entry("upload", 1L),
            Map.entry("pull_sync", 2L),
            Map.entry("write-back-2", 0L));
    assertThat(fairness.writersWithoutWin()).containsExactly("write-back-2");
    // (1+1+2+0)^2 / (4 * (1+1+4+0)) = 16/24
    assertThat(fairness.jainIndex()).isEqualTo(16.0 / 24);
    assertThat(fairness.busyGiveUps()).isEqualTo(2);
    assertThat(fairness.timeToWin().count()).isEqualTo(4);
    // write-back -> upload -> pull_sync; pull_sync's second section is no hand-over
    assertThat(fairness.handovers()).isEqualTo(2);
    assertThat(fairness.handoverGap().max()).isEqualTo(Duration.ofNanos(50_000));
    assertThat(DemoOutcome.meetsFairnessTarget(fairness)).isFalse();
  }

  @Test
  void cleanRecordHasNoViolation() {
    CheckReport report = RecordChecker.check(CLEAN, stampsOf(CLEAN));

    assertThat(report.violations()).isZero();
    assertThat(report.examples()).isEmpty();
    assertThat(report.sections()).isEqualTo(4);
    assertThat(report.objects()).isEqualTo(3);
    assertThat(report.handovers()).isEqualTo(2);
  }

  @Test
  void overlappingSectionsAreFound() {
    List<SectionRecord> record =
        List.of(
            section("write-back", 1, 0, 100, "a"),
            section("upload", 2, 90, 200, "b"), // starts before write-back's ends
            section("pull_sync", 3, 300, 400, "c"));

    CheckReport report = RecordChecker.check(record, stampsOf(record));

    assertThat(report.overlaps()).isEqualTo(1);
    assertThat(report.tokenOrderViolations()).isZero();
    assertThat(report.examples())
        .singleElement()
        .asString()
        .startsWith("overlap: ")
        .contains("upload", "write-back");
  }

  @Test
  void sectionInsideALongerOneIsAnOverlapEvenAfterAShortOne() {
    List<SectionRecord> record =
        List.of(
            section("write-back", 1, 0, 1000, "a"),
            section("upload", 2, 100, 200, "b"),
            section("pull_sync", 3, 300, 400, "c")); // ends before write-back's, after upload's

    assertThat(RecordChecker.check(record, stampsOf(record)).overlaps()).isEqualTo(2);
  }

  @Test
  void sectionsThatTouchCountAsOverlapping() {
    List<SectionRecord> record =
        List.of(section("write-back", 1, 0, 100, "a"), section("upload", 2, 100, 200, "b"));

    assertThat(RecordChecker.check(record, stampsOf(record)).overlaps()).isEqualTo(1);
  }

  @Test
  void tokenOrderInversionIsFound() {
    List<SectionRecord> record =
        List.of(
            section("write-back", 1, 0, 100, "a"),
            section("upload", 3, 200, 300, "b"),
            section("pull_sync", 2, 400, 500, "c")); // later, with a smaller token

    CheckReport report = RecordChecker.check(record, stampsOf(record));

    assertThat(report.tokenOrderViolations()).isEqualTo(1);
    assertThat(report.overlaps()).isZero();
    assertThat(report.examples())
        .singleElement()
        .asString()
        .startsWith("token order: ")
        .contains("fencing token 2");
  }

  @Test
  void repeatedTokenIsATokenOrderViolation() {
    List<SectionRecord> record =
        List.of(section("write-back", 7, 0, 100, "a"), section("upload", 7, 200, 300, "b"));

    assertThat(RecordChecker.check(record, stampsOf(record)).tokenOrderViolations()).isEqualTo(1);
  }

  @Test
  void objectStampedByAnOlderLeaseThanItsLastWriterIsFound() {
    Map<String, ObjectStamp> stamps = stampsOf(CLEAN);
    // "b" was last written by upload (token 2), but the bucket holds write-back's token 1 write:
    // a late write from an older holder landed last.
    stamps.put("b", new ObjectStamp("b", 1L, "write-back", 1L));

    CheckReport report = RecordChecker.check(CLEAN, stamps);

    assertThat(report.stampViolations()).isEqualTo(1);
    assertThat(report.examples())
        .singleElement()
        .asString()
        .startsWith("stamp: object 'b' carries fencing token 1");
  }

  @Test
  void missingUnrecordedMislabelledAndTornObjectsAreFound() {
    Map<String, ObjectStamp> stamps = stampsOf(CLEAN);
    stamps.remove("a"); // written, but gone
    stamps.put("z", new ObjectStamp("z", 9L, "intruder", 9L)); // never written by a section
    stamps.put("b", new ObjectStamp("b", 2L, "write-back", 2L)); // right token, wrong holder
    stamps.put("c", new ObjectStamp("c", 4L, "pull_sync", 3L)); // metadata and body disagree

    CheckReport report = RecordChecker.check(CLEAN, stamps);

    assertThat(report.stampViolations()).isEqualTo(4);
    assertThat(report.examples())
        .anySatisfy(e -> assertThat(e).contains("'a' is missing"))
        .anySatisfy(e -> assertThat(e).contains("'z'", "no recorded critical section"))
        .anySatisfy(e -> assertThat(e).contains("'b' carries holder write-back"))
        .anySatisfy(e -> assertThat(e).contains("'c'", "torn write"));
  }

  @Test
  void sectionOutsideItsLeaseIsFound() {
    SectionRecord ok = section("write-back", 1, 0, 100, "a");
    SectionRecord expired =
        new SectionRecord(
            "upload", 101, 1, 2, T + 150, T + 200, T + 190, T + 250, List.of("b"), 1, 0, null);
    List<SectionRecord> record = List.of(ok, expired);

    CheckReport report = RecordChecker.check(record, stampsOf(record));

    assertThat(report.leaseViolations()).isEqualTo(1);
    assertThat(report.examples()).singleElement().asString().contains("ran outside its lease");
  }

  @Test
  void examplesAreBounded() {
    List<SectionRecord> record = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      record.add(
          section("upload", 100 - i, i * 10, i * 10 + 50, "k" + i)); // all overlap, all inverted
    }

    CheckReport report = RecordChecker.check(record, stampsOf(record));

    assertThat(report.overlaps()).isEqualTo(99);
    assertThat(report.tokenOrderViolations()).isEqualTo(99);
    assertThat(report.examples()).hasSize(RecordChecker.MAX_EXAMPLES);
  }
}
