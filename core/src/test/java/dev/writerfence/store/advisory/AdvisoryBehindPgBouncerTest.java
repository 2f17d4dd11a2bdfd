package dev.writerfence.store.advisory;

import static dev.writerfence.store.advisory.AdvisoryTestSupport.DB;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.advisoryLocks;
import static dev.writerfence.store.advisory.AdvisoryTestSupport.holdersOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.PgBouncerExtension;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Case C17, the advisory half: PgBouncer in transaction pooling mode hands one server session to
 * several clients, so the raw advisory primitive double-acquires through it, and the advisory-lock
 * backend refuses to start there. Needs {@code pgbouncer} on the PATH (skipped without it, failed
 * without it when {@code CI=true}).
 */
class AdvisoryBehindPgBouncerTest {
  /** One server connection: every client's transaction runs on the same server session. */
  @RegisterExtension
  static final PgBouncerExtension BOUNCER = new PgBouncerExtension("transaction", 1);

  @Test
  void rawAdvisoryLockReturnsTrueTwiceThroughTransactionPooling() throws Exception {
    long key = new SecureRandom().nextLong();
    try (Connection first = BOUNCER.get().dataSource().getConnection();
        Connection second = BOUNCER.get().dataSource().getConnection()) {
      try {
        assertThat(tryLock(first, key)).isTrue();
        assertThat(tryLock(second, key)).as("the second client wins the same lock").isTrue();
        assertThat(holdersOf(key)).as("one server session holds it").isEqualTo(1);
      } finally {
        // The lock lives on the pooled server session, which outlives both clients.
        DB.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_locks WHERE locktype = 'advisory'"
                + " AND objsubid = 1 AND classid::bigint = "
                + (key >>> 32)
                + " AND objid::bigint = "
                + (key & 0xFFFF_FFFFL));
      }
    }
    assertThat(holdersOf(key)).isZero();
  }

  @Test
  void C17_advisoryBackendRefusesToStartBehindTransactionPooling() {
    long before = advisoryLocks();

    assertThatThrownBy(
            () ->
                AdvisoryLockStore.create(BOUNCER.get().dataSource(), 2, FenceSchema.DEFAULT_SCHEMA))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("refuses to start")
        .hasMessageContaining("transaction pooling")
        .hasMessageContaining("pool_mode = transaction");

    assertThat(advisoryLocks()).as("the self-check unlocked its key").isEqualTo(before);
  }

  private static boolean tryLock(Connection connection, long key) throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
      ps.setLong(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getBoolean(1);
      }
    }
  }
}
