package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.testing.FenceNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The application role takes advisory fencing tokens through the granted SECURITY DEFINER function
 * only: it has no right on the sequence itself.
 */
class AdvisoryPrivilegesTest {
  private static final String SCHEMA = "wf_advisory_sec";
  private static final String ROLE = "fence_advisory_app";

  @Test
  void applicationRoleAcquiresThroughTheFunctionAndCannotTouchTheSequence() throws Exception {
    DB.execute(
        "DO $$ BEGIN CREATE ROLE "
            + ROLE
            + " LOGIN PASSWORD 'app'; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    FenceSchema.defaults().schema(SCHEMA).grantTo(ROLE).install(DB.dataSource());
    DataSource asApp = DB.dataSource(ROLE, "app");
    String name = FenceNames.random("advisory-privileges");

    try (AdvisoryLockStore store = AdvisoryLockStore.create(asApp, 2, SCHEMA)) {
      StoreLease lease =
          store.acquire(name, UUID.randomUUID(), "app", Duration.ofSeconds(30)).orElseThrow();
      assertThat(lease.fencingToken()).isPositive();
      assertThat(lease.release()).isTrue();
    }
    Throwable refused =
        catchThrowable(
            () -> {
              try (Connection c = asApp.getConnection();
                  Statement st = c.createStatement()) {
                st.execute("SELECT nextval('" + SCHEMA + ".advisory_fencing_token')");
              }
            });
    assertThat(refused)
        .isInstanceOfSatisfying(
            SQLException.class, e -> assertThat(e.getSQLState()).isEqualTo("42501"));
  }
}
