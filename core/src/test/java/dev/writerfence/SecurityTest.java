package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.ContractCalls;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The application's role gets only what {@code FenceSchema.grantTo} gives: EXECUTE on the functions
 * and SELECT on the status view. It can take and give back its own leases, and nothing else: the
 * table is closed to it and another holder's lease is out of its reach.
 */
class SecurityTest extends FenceTestSupport {
  private static final String SECURED = "wf_sec";
  private static final String APP_ROLE = "fence_app";

  private static DataSource asApp;
  private static ContractCalls appCalls;
  private static ContractCalls ownerCalls;

  @BeforeAll
  static void installForTheApplicationRole() throws SQLException {
    DB.execute(
        "DO $$ BEGIN CREATE ROLE "
            + APP_ROLE
            + " LOGIN PASSWORD 'fence_app'; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    FenceSchema.defaults().schema(SECURED).grantTo(APP_ROLE).install(DB.dataSource());
    asApp = DB.dataSource(APP_ROLE, "fence_app");
    appCalls = new ContractCalls(asApp, SECURED);
    ownerCalls = new ContractCalls(DB.dataSource(), SECURED);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT * FROM wf_sec.lease",
        "UPDATE wf_sec.lease SET holder_token = NULL",
        "DELETE FROM wf_sec.lease",
        "INSERT INTO wf_sec.lease VALUES ('x', NULL, NULL, 1, now(), now())",
        "SELECT writer_fence.acquire('x', gen_random_uuid(), 'l', 30)",
        "SELECT wf_sec.check_args('x', gen_random_uuid(), 'l', 30)",
        "SELECT wf_sec.args_ok('x', gen_random_uuid(), 'l', 30)",
        "SELECT wf_sec.fence_name_ok('x')",
        "SELECT wf_sec.holder_label_ok('l')"
      })
  void applicationRoleCannotTouchTheTableNorAnythingNotGranted(String statement) throws Exception {
    appCalls.acquire(name, UUID.randomUUID(), "app", 30); // a row exists to be touched
    long rows = ownerCalls.leaseRows();

    Throwable refused = catchThrowable(() -> executeAsApp(statement));

    assertThat(refused)
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
    assertThat(ownerCalls.leaseRows()).isEqualTo(rows);
    assertThat(ownerCalls.state(name)).isEqualTo("held");
  }

  @Test
  void applicationRoleTakesAndGivesBackItsOwnLeaseThroughTheFunctions() throws Exception {
    WriterFence fence = fence(asApp).schema(SECURED).build();
    FenceLease lease =
        fence
            .tryAcquire(FenceRequest.builder(name).holderLabel("app").ttl(TTL).build())
            .orElseThrow();
    assertThat(ownerCalls.state(name)).isEqualTo("held");
    assertThat(fence.release(lease)).isTrue();
    assertThat(ownerCalls.state(name)).isEqualTo("free");
  }

  @Test
  void applicationRoleCannotReleaseOrRenewAnotherHoldersLease() throws Exception {
    UUID holder = UUID.randomUUID();
    long token = ownerCalls.acquire(name, holder, "other-holder", 30);
    var expiresAt = ownerCalls.expiresAt(name);

    assertThat(appCalls.release(name, UUID.randomUUID())).isFalse();
    assertThat(appCalls.renew(name, UUID.randomUUID(), 86_400)).isFalse();
    assertThat(appCalls.acquire(name, UUID.randomUUID(), "thief", 30)).isNull();

    assertThat(ownerCalls.state(name)).isEqualTo("held");
    assertThat(ownerCalls.fencingToken(name)).isEqualTo(token);
    assertThat(ownerCalls.expiresAt(name)).isEqualTo(expiresAt);
    assertThat(ownerCalls.release(name, holder)).isTrue();
  }

  @Test
  void statusViewIsReadableAndNeverShowsTheHolderToken() throws Exception {
    appCalls.acquire(name, UUID.randomUUID(), "visible", 30);
    List<String> columns = new ArrayList<>();
    try (Connection c = asApp.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT * FROM wf_sec.lease_status WHERE fence_name = '" + name + "'")) {
      ResultSetMetaData meta = rs.getMetaData();
      for (int i = 1; i <= meta.getColumnCount(); i++) {
        columns.add(meta.getColumnName(i));
      }
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString("holder_label")).isEqualTo("visible");
      assertThat(rs.getString("state")).isEqualTo("held");
    }
    assertThat(columns)
        .containsExactly(
            "fence_name",
            "holder_label",
            "fencing_token",
            "acquired_at",
            "expires_at",
            "seconds_left",
            "state");
  }

  private static void executeAsApp(String statement) throws SQLException {
    try (Connection c = asApp.getConnection();
        Statement st = c.createStatement()) {
      st.execute(statement);
    }
  }
}
