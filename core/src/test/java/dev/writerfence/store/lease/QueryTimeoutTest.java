package dev.writerfence.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

/** The query timeout: JDBC takes whole seconds, so a fraction of a second is rounded up. */
class QueryTimeoutTest {

  @Test
  void queryTimeoutOfAFractionOfASecondIsRoundedUp() {
    assertThat(PgLeaseStore.queryTimeoutSeconds(Duration.ofSeconds(1))).isEqualTo(1);
    assertThat(PgLeaseStore.queryTimeoutSeconds(Duration.ofMillis(1001))).isEqualTo(2);
    assertThat(PgLeaseStore.queryTimeoutSeconds(Duration.ofMillis(1500))).isEqualTo(2);
    assertThat(PgLeaseStore.queryTimeoutSeconds(Duration.ofSeconds(10))).isEqualTo(10);
    assertThat(PgLeaseStore.queryTimeoutSeconds(Duration.ofDays(100_000)))
        .isEqualTo(Integer.MAX_VALUE);
    PgLeaseStore store =
        new PgLeaseStore(
            new PGSimpleDataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofMillis(2500));
    assertThat(store.queryTimeoutSeconds()).isEqualTo(3);
  }

  @Test
  void queryTimeoutUnderOneSecondIsRefusedNamingTheValue() {
    assertThatThrownBy(
            () ->
                WriterFence.builder(new PGSimpleDataSource()).queryTimeout(Duration.ofMillis(500)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("query timeout PT0.5S")
        .hasMessageContaining("at least 1 second");
  }
}
