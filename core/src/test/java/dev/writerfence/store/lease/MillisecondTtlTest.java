package dev.writerfence.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * TTLs in milliseconds (contract version 4, ADR 62): the store keeps them to the millisecond
 * through the {@code _ms} functions, a TTL of whole seconds still goes to the functions every
 * version has (so a version 3 contract keeps serving it), and a sub-second TTL against an older
 * contract fails naming the version it needs and how to upgrade.
 */
class MillisecondTtlTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final String SCHEMA = FenceSchema.DEFAULT_SCHEMA;

  private final String name = FenceNames.random("ms-ttl");
  private final PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, seconds(10));

  @Test
  void aSubSecondTtlIsALeaseOfThatManyMilliseconds() {
    StoreLease lease =
        store.acquire(name, UUID.randomUUID(), "short", Duration.ofMillis(250)).orElseThrow();

    assertThat(Duration.between(lease.acquiredAt(), lease.expiresAt()))
        .isEqualTo(Duration.ofMillis(250));
    LeaseStatus row = store.status(name).orElseThrow();
    assertThat(row.expiresAt()).isEqualTo(lease.expiresAt());
    // Expired on the database clock well before a second: another holder takes over.
    StoreLease next =
        await()
            .atMost(seconds(5))
            .until(
                () -> store.acquire(name, UUID.randomUUID(), "next", seconds(30)),
                Optional::isPresent)
            .orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
    assertThat(lease.renew(Duration.ofMillis(300))).as("taken over: nothing to renew").isEmpty();
    assertThat(next.release()).isTrue();
  }

  @Test
  void renewingWithASubSecondTtlShortensTheLeaseToThatManyMilliseconds() {
    StoreLease lease = store.acquire(name, UUID.randomUUID(), "held", seconds(60)).orElseThrow();

    Instant renewed = lease.renew(Duration.ofMillis(1_500)).orElseThrow();

    assertThat(renewed).isBefore(lease.expiresAt());
    assertThat(store.status(name).orElseThrow().expiresAt()).isEqualTo(renewed);
    await().atMost(seconds(10)).until(() -> !store.status(name).orElseThrow().isHeld());
    assertThat(lease.release()).as("expired, but still this holder's row").isTrue();
  }

  @Test
  void aQueuedPollTakesItsTtlInMilliseconds() {
    Ticket ticket = new Ticket(name, UUID.randomUUID(), "queued", 0, seconds(5));

    Turn turn = store.acquireInTurn(ticket, UUID.randomUUID(), Duration.ofMillis(750));

    assertThat(turn.acquired()).isTrue();
    StoreLease lease = turn.lease().orElseThrow();
    assertThat(Duration.between(lease.acquiredAt(), lease.expiresAt()))
        .isEqualTo(Duration.ofMillis(750));
    assertThat(lease.release()).isTrue();
  }

  @Test
  void theSqlFunctionsTakeMillisecondsAndTheSecondFormsAreUnchanged() throws SQLException {
    UUID holder = UUID.randomUUID();
    try (Connection c = DB.dataSource().getConnection()) {
      Long token = scalar(c, Long.class, "acquire_ms(?, ?, ?, ?)", name, holder, "psql", 1_234L);
      assertThat(token).isNotNull();
      assertThat(lifetime()).isEqualTo(Duration.ofMillis(1_234));
      assertThat(scalar(c, Long.class, "acquire_ms(?, ?, ?, ?)", name, UUID.randomUUID(), "b", 5L))
          .as("busy")
          .isNull();
      assertThat(scalar(c, Boolean.class, "renew_ms(?, ?, ?)", name, holder, 86_400_000L)).isTrue();
      assertThat(scalar(c, Boolean.class, "release(?, ?)", name, holder)).isTrue();

      UUID secondsHolder = UUID.randomUUID();
      assertThat(scalar(c, Long.class, "acquire(?, ?, ?, ?)", name, secondsHolder, "s", 7))
          .isGreaterThan(token);
      assertThat(lifetime()).as("whole seconds, as before").isEqualTo(seconds(7));
      assertThat(scalar(c, Boolean.class, "release(?, ?)", name, secondsHolder)).isTrue();
    }
  }

  @Test
  void aTtlOutsideOneMillisecondToOneDayIsRefusedNamingTheValue() throws SQLException {
    try (Connection c = DB.dataSource().getConnection()) {
      for (long ms : new long[] {0, -5, 86_400_001}) {
        assertThatThrownBy(
                () ->
                    scalar(
                        c, Long.class, "acquire_ms(?, ?, ?, ?)", name, UUID.randomUUID(), "x", ms))
            .isInstanceOf(SQLException.class)
            .hasMessageContaining("TTL " + ms + " ms is not allowed: 1 to 86400000 ms")
            .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("22023"));
      }
      assertThatThrownBy(
              () -> scalar(c, Boolean.class, "renew_ms(?, ?, ?)", name, UUID.randomUUID(), null))
          .hasMessageContaining("TTL NULL ms is not allowed");
    }
    for (Duration bad :
        new Duration[] {
          Duration.ZERO, Duration.ofNanos(1_500_000), Duration.ofMillis(86_400_001)
        }) {
      assertThatThrownBy(() -> store.acquire(name, UUID.randomUUID(), "x", bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("TTL " + bad)
          .hasMessageContaining("whole milliseconds from 1 ms to 86400000 ms");
    }
    assertThat(FenceArguments.ttlMillis(Duration.ofDays(1))).isEqualTo(86_400_000L);
    assertThat(store.status(name)).as("nothing was taken").isEmpty();
  }

  @Test
  void onAVersion3ContractWholeSecondsWorkAndASubSecondTtlNamesTheUpgrade() throws SQLException {
    String v3 = "wf_ms_v3";
    DB.execute("DROP SCHEMA IF EXISTS " + v3 + " CASCADE");
    FenceSchema installer = FenceSchema.defaults().schema(v3);
    for (String resource : FenceSchema.MIGRATION_RESOURCES.subList(0, 3)) {
      DB.execute(
          FenceSchema.migrationTemplate(resource)
              .replace("${writer_fence_schema}", v3)
              .replace("${writer_fence_role}", "CURRENT_USER"));
    }
    assertThat(DB.queryValue(Integer.class, "SELECT " + v3 + ".schema_version()")).isEqualTo(3);
    PgLeaseStore old = new PgLeaseStore(DB.dataSource(), v3, seconds(10));

    StoreLease lease = old.acquire(name, UUID.randomUUID(), "seconds", seconds(2)).orElseThrow();
    assertThat(lease.renew(seconds(30))).isPresent();

    assertThatThrownBy(() -> lease.renew(Duration.ofMillis(500)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("fence '" + name + "'")
        .hasMessageContaining("a TTL of PT0.5S (not whole seconds)")
        .hasMessageContaining("SQL contract version 4")
        .hasMessageContaining("schema '" + v3 + "' holds an older version")
        .hasMessageContaining("./writer-fence schema install --jdbc-url URL")
        .hasMessageContaining("FenceSchema.install");
    assertThatThrownBy(
            () -> old.acquire(name + "-2", UUID.randomUUID(), "ms", Duration.ofMillis(1_500)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("SQL contract version 4");
    Ticket ticket = new Ticket(name + "-3", UUID.randomUUID(), "queued", 0, seconds(5));
    assertThatThrownBy(() -> old.acquireInTurn(ticket, UUID.randomUUID(), Duration.ofMillis(10)))
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("SQL contract version 4");

    installer.install(DB.dataSource());
    assertThat(lease.renew(Duration.ofMillis(500)))
        .as("upgraded in place: the lease is kept")
        .isPresent();
    assertThat(lease.release()).isTrue();
  }

  private static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }

  /** The test's row: expires_at - acquired_at. */
  private Duration lifetime() {
    return Duration.between(
        DB.queryValue(
                OffsetDateTime.class,
                "SELECT acquired_at FROM " + SCHEMA + ".lease_status WHERE fence_name = ?",
                name)
            .toInstant(),
        DB.queryValue(
                OffsetDateTime.class,
                "SELECT expires_at FROM " + SCHEMA + ".lease_status WHERE fence_name = ?",
                name)
            .toInstant());
  }

  /** Calls one scalar function of the contract, as a script in any language would. */
  private static <T> T scalar(Connection c, Class<T> type, String call, Object... args)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT " + SCHEMA + "." + call)) {
      for (int i = 0; i < args.length; i++) {
        ps.setObject(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getObject(1, type);
      }
    }
  }
}
