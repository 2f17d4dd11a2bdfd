package dev.writerfence.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code status} measures ages in Java against the database time the store read; they are what the
 * database's own {@code round(extract(epoch FROM later - earlier), 3)} gives, ties and negative
 * ages included.
 */
class StatusAgesTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  @Test
  void agesAreTheDatabasesRoundedToMilliseconds() {
    Instant base = Instant.parse("2026-12-04T10:00:00.000000Z");
    List<Duration> gaps =
        List.of(
            Duration.ZERO,
            Duration.ofNanos(400_000), // 0.0004 s
            Duration.ofNanos(500_000), // 0.0005 s: a tie
            Duration.ofNanos(1_234_500_000), // a tie above a second
            Duration.ofNanos(-1_234_500_000), // a tie below zero
            Duration.ofNanos(-499_000),
            Duration.ofDays(3).plusHours(4).plusNanos(999_999_000));
    for (Duration gap : gaps) {
      Instant later = base.plus(gap);
      BigDecimal database =
          DB.queryValue(
              BigDecimal.class,
              "SELECT round(extract(epoch FROM ?::timestamptz - ?::timestamptz), 3)",
              OffsetDateTime.ofInstant(later, ZoneOffset.UTC),
              OffsetDateTime.ofInstant(base, ZoneOffset.UTC));

      assertThat(StatusCommand.seconds(base, later)).as(gap.toString()).isEqualTo(database);
    }
  }
}
