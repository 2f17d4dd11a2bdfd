package dev.writerfence.store.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What an operator's commands read through the lease store (every fence's status and queue, each
 * with the database clock of its statement) and do as the owner of the lease table (the owner
 * check, the row, the clear of one shown lease), on a real PostgreSQL.
 */
class OperatorReadsTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final String SCHEMA = "wf_operator";
  private static final String APP_ROLE = "wf_operator_app";
  private static final Duration TTL = Duration.ofSeconds(600);
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  private final PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, TIMEOUT);

  @BeforeAll
  static void install() throws SQLException {
    DB.execute(
        "DO $$ BEGIN CREATE ROLE "
            + APP_ROLE
            + " LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    FenceSchema.defaults().schema(SCHEMA).grantTo(APP_ROLE).install(DB.dataSource());
  }

  @Test
  void everyFencesStatusAndQueueComeWithTheDatabaseClockOfTheirStatement() {
    String held = FenceNames.random("operator-held");
    UUID holder = UUID.randomUUID();
    StoreLease lease = store.acquire(held, holder, "upload", TTL).orElseThrow();
    Ticket waiting = new Ticket(held, UUID.randomUUID(), "next", 5, Duration.ofSeconds(30));
    store.enqueue(waiting);

    Clocked<List<LeaseStatus>> status = store.statusAllClocked();
    Optional<Clocked<List<QueuedWaiter>>> queue = store.queueAllClocked();

    assertThat(status.value())
        .as("the rows of statusAll, in its order; seconds left run down between the two reads")
        .usingRecursiveFieldByFieldElementComparatorIgnoringFields("secondsLeft")
        .containsExactlyElementsOf(store.statusAll());
    LeaseStatus row =
        status.value().stream().filter(s -> s.fenceName().equals(held)).findFirst().orElseThrow();
    assertThat(row.state()).isEqualTo("held");
    assertThat(row.fencingToken()).isEqualTo(lease.fencingToken());
    assertThat(status.databaseTime()).isAfterOrEqualTo(lease.acquiredAt());
    assertThat(queue).isPresent();
    assertThat(queue.get().value()).containsAll(store.queue(held));
    assertThat(queue.get().value())
        .filteredOn(w -> w.fenceName().equals(held))
        .singleElement()
        .satisfies(
            w -> {
              assertThat(w.holderLabel()).isEqualTo("next");
              assertThat(w.place()).isEqualTo(1);
            });
    assertThat(queue.get().databaseTime()).isAfterOrEqualTo(status.databaseTime());

    assertThat(store.leaveQueue(held, waiting.waiterToken())).isTrue();
    assertThat(lease.release()).isTrue();
  }

  @Test
  void anEmptySchemaHasNoRowsButADatabaseTimeAndAVersionOneSchemaHasNoQueue() {
    String schema = "wf_operator_v1";
    // What an installer of contract version 1 left: V1's migration alone.
    DB.execute(
        FenceSchema.migrationTemplate(FenceSchema.MIGRATION_RESOURCES.get(0))
            .replace("${writer_fence_schema}", schema)
            .replace("${writer_fence_role}", "CURRENT_USER"));
    PgLeaseStore v1 = new PgLeaseStore(DB.dataSource(), schema, TIMEOUT);
    Instant before = DB.queryValue(OffsetDateTime.class, "SELECT now()").toInstant();

    Clocked<List<LeaseStatus>> status = v1.statusAllClocked();

    assertThat(status.value()).isEmpty();
    assertThat(status.databaseTime()).isAfterOrEqualTo(before);
    assertThat(v1.queueAllClocked()).isEmpty();
  }

  @Test
  void aMissingSchemaIsUnavailableWithTheDatabasesErrorAsItsCause() {
    PgLeaseStore missing = new PgLeaseStore(DB.dataSource(), "wf_operator_never", TIMEOUT);

    assertThatThrownBy(missing::statusAllClocked)
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("is not installed")
        .cause()
        .isInstanceOf(SQLException.class)
        .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isIn("42P01", "3F000"));
  }

  @Test
  void theOwnerClearsTheShownLeaseOnlyAndKeepsTheFencingToken() throws SQLException {
    String name = FenceNames.random("operator-clear");
    StoreLease shown = store.acquire(name, UUID.randomUUID(), "stuck", TTL).orElseThrow();

    try (LeaseTableOwner owner = LeaseTableOwner.open(DB.dataSource(), SCHEMA, TIMEOUT)) {
      LeaseTableOwner.Ownership ownership = owner.ownership().orElseThrow();
      assertThat(ownership.owns()).isTrue();
      assertThat(ownership.role()).isEqualTo("postgres");
      assertThat(ownership.owner()).isEqualTo("postgres");

      Clocked<LeaseStatus> row = owner.row(name).orElseThrow();
      assertThat(row.value().state()).isEqualTo("held");
      assertThat(row.value().holderLabel()).isEqualTo("stuck");
      assertThat(row.value().fencingToken()).isEqualTo(shown.fencingToken());
      assertThat(row.value().secondsLeft()).isPositive();
      assertThat(row.databaseTime()).isAfterOrEqualTo(shown.acquiredAt());
      assertThat(owner.row(FenceNames.random("operator-unknown"))).isEmpty();

      assertThat(owner.clear(name, shown.fencingToken() + 1)).as("another lease").isFalse();
      assertThat(owner.row(name).orElseThrow().value().state()).isEqualTo("held");
      assertThat(owner.clear(name, shown.fencingToken())).isTrue();
      assertThat(owner.clear(name, shown.fencingToken())).as("free already").isFalse();
      LeaseStatus cleared = owner.row(name).orElseThrow().value();
      assertThat(cleared.state()).isEqualTo("free");
      assertThat(cleared.fencingToken()).isEqualTo(shown.fencingToken());
    }
    assertThat(shown.release()).as("the old holder no longer holds it").isFalse();
    StoreLease next = store.acquire(name, UUID.randomUUID(), "next", TTL).orElseThrow();
    assertThat(next.fencingToken()).isGreaterThan(shown.fencingToken());
    assertThat(next.release()).isTrue();
  }

  @Test
  void aRoleThatIsNotTheOwnerIsToldSoAndAMissingTableIsNoOwnership() throws SQLException {
    try (LeaseTableOwner app =
        LeaseTableOwner.open(DB.dataSource(APP_ROLE, null), SCHEMA, TIMEOUT)) {
      LeaseTableOwner.Ownership ownership = app.ownership().orElseThrow();
      assertThat(ownership.owns()).isFalse();
      assertThat(ownership.role()).isEqualTo(APP_ROLE);
      assertThat(ownership.owner()).isEqualTo("postgres");
    }
    try (LeaseTableOwner none =
        LeaseTableOwner.open(DB.dataSource(), "wf_operator_never", TIMEOUT)) {
      assertThat(none.ownership()).isEmpty();
    }
  }
}
