package dev.writerfence.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.testing.SectionReport.Kind;
import dev.writerfence.testing.SectionReport.Violation;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each rule of the checker, on records made up to break exactly that rule. */
class SectionCheckerTest {
  private static final Instant T0 = Instant.parse("2026-11-30T12:00:00Z");

  /** A section of {@code writer} from {@code from} to {@code to} microseconds after T0. */
  private static Section section(String writer, long token, long from, long to) {
    return new Section(writer, token, T0.plusNanos(from * 1_000), T0.plusNanos(to * 1_000));
  }

  @Test
  void oneWriterAtATimeWithRisingTokensIsClean() {
    SectionReport report =
        SectionChecker.check(
            List.of(section("b", 2, 30, 40), section("a", 1, 10, 20), section("a", 3, 50, 60)));

    assertThat(report.violations()).isEmpty();
    assertThat(report.isClean()).isTrue();
    assertThat(report.sections()).isEqualTo(3);
    assertThat(report.handovers()).as("a, then b, then a").isEqualTo(2);
  }

  @Test
  void aSectionEnteredBeforeTheLastOneLeftIsAnOverlap() {
    SectionReport report =
        SectionChecker.check(List.of(section("a", 1, 10, 20), section("b", 2, 15, 30)));

    assertThat(report.violations()).extracting(Violation::kind).containsExactly(Kind.OVERLAP);
    assertThat(report.violations().get(0).toString()).startsWith("overlap: ");
  }

  @Test
  void enteringAtTheSameInstantAnotherLeftIsAnOverlap() {
    SectionReport report =
        SectionChecker.check(List.of(section("a", 1, 10, 20), section("b", 2, 20, 30)));

    assertThat(report.count(Kind.OVERLAP)).isEqualTo(1);
  }

  @Test
  void aSectionInsideALongOneIsNoAlibiForTheNext() {
    // The short section leaves first; the third still enters while the long one is inside.
    SectionReport report =
        SectionChecker.check(
            List.of(
                section("long", 1, 10, 100), section("short", 2, 20, 30), section("c", 3, 40, 50)));

    assertThat(report.count(Kind.OVERLAP)).isEqualTo(2);
    assertThat(report.violations().get(1).message()).contains("section of c", "section of long");
  }

  @Test
  void aTokenThatDoesNotRiseInOrderOfEntryIsATokenOrderViolation() {
    SectionReport report =
        SectionChecker.check(List.of(section("a", 5, 10, 20), section("b", 4, 30, 40)));

    assertThat(report.violations()).extracting(Violation::kind).containsExactly(Kind.TOKEN_ORDER);
  }

  @Test
  void aRepeatedTokenIsAViolationUnlessAHoldMaySpanSectionsOfOneWriter() {
    List<Section> oneHold = List.of(section("a", 7, 10, 20), section("a", 7, 30, 40));
    List<Section> twoWriters = List.of(section("a", 7, 10, 20), section("b", 7, 30, 40));

    assertThat(SectionChecker.check(oneHold).count(Kind.TOKEN_ORDER)).isEqualTo(1);
    assertThat(SectionChecker.checkHolds(oneHold).violations()).isEmpty();
    assertThat(SectionChecker.checkHolds(twoWriters).count(Kind.TOKEN_ORDER)).isEqualTo(1);
    assertThat(
            SectionChecker.checkHolds(List.of(section("a", 7, 10, 20), section("a", 6, 30, 40)))
                .count(Kind.TOKEN_ORDER))
        .as("a token that goes back")
        .isEqualTo(1);
  }

  @Test
  void aSectionWithoutAFencingTokenIsReported() {
    SectionReport report = SectionChecker.check(List.of(section("unfenced", 0, 10, 20)));

    assertThat(report.violations()).extracting(Violation::kind).containsExactly(Kind.NO_TOKEN);
  }

  @Test
  void aSectionOutsideItsKnownLeaseIsReported() {
    Instant granted = T0.plusNanos(10_000);
    Instant expires = T0.plusNanos(50_000);
    Section inside =
        new Section("a", 1, T0.plusNanos(10_000), T0.plusNanos(40_000), granted, expires);
    Section early =
        new Section(
            "b",
            2,
            T0.plusNanos(60_000),
            T0.plusNanos(70_000),
            T0.plusNanos(65_000),
            T0.plusNanos(90_000));
    Section late =
        new Section(
            "c",
            3,
            T0.plusNanos(80_000),
            T0.plusNanos(90_000),
            T0.plusNanos(75_000),
            T0.plusNanos(90_000));

    assertThat(SectionChecker.check(List.of(inside)).violations()).isEmpty();
    assertThat(SectionChecker.check(List.of(early)).count(Kind.OUTSIDE_LEASE)).isEqualTo(1);
    assertThat(SectionChecker.check(List.of(late)).count(Kind.OUTSIDE_LEASE))
        .as("left at the expiry")
        .isEqualTo(1);
  }

  @Test
  void aSectionThatLeavesBeforeItEntersIsAMalformedRecord() {
    SectionReport report = SectionChecker.check(List.of(section("a", 1, 20, 10)));

    assertThat(report.violations()).extracting(Violation::kind).containsExactly(Kind.MALFORMED);
  }

  @Test
  void aLeaseIsKnownByBothEndsOrNeither() {
    assertThatThrownBy(() -> new Section("a", 1, T0, T0, T0, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("both ends or neither");
  }
}
