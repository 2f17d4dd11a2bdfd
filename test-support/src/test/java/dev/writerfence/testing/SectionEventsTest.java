package dev.writerfence.testing;

import static dev.writerfence.testing.SectionEvents.Event.entry;
import static dev.writerfence.testing.SectionEvents.Event.exit;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.testing.SectionReport.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** An ordered log of entries and exits, turned into sections and checked. */
class SectionEventsTest {
  @Test
  void entriesAndExitsThatNeverInterleaveAreCleanSections() {
    List<Section> sections =
        SectionEvents.sections(List.of(entry("a", 1), exit("a", 1), entry("b", 2), exit("b", 2)));

    assertThat(sections).extracting(Section::writer).containsExactly("a", "b");
    assertThat(SectionChecker.check(sections).violations()).isEmpty();
  }

  @Test
  void anEntryBeforeTheLastExitIsAnOverlap() {
    List<Section> sections =
        SectionEvents.sections(List.of(entry("a", 1), entry("b", 2), exit("a", 1), exit("b", 2)));

    assertThat(SectionChecker.check(sections).count(Kind.OVERLAP)).isEqualTo(1);
  }

  @Test
  void aSectionNeverLeftOverlapsEveryLaterOne() {
    List<Section> sections =
        SectionEvents.sections(List.of(entry("dead", 1), entry("b", 2), exit("b", 2)));

    assertThat(sections).hasSize(2);
    assertThat(SectionChecker.check(sections).count(Kind.OVERLAP)).isEqualTo(1);
  }

  @Test
  void aNestedEntryOfTheSameWriterAndKeyIsAnOverlapNotAMismatch() {
    List<Section> sections =
        SectionEvents.sections(List.of(entry("a", 1), entry("a", 1), exit("a", 1), exit("a", 1)));

    assertThat(SectionChecker.checkHolds(sections).count(Kind.OVERLAP)).isEqualTo(1);
  }

  @Test
  void anExitWithoutItsEntryIsNotARecord() {
    assertThatThrownBy(() -> SectionEvents.sections(List.of(entry("a", 1), exit("a", 2))))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("event 2")
        .hasMessageContaining("leaves no open section");
  }
}
