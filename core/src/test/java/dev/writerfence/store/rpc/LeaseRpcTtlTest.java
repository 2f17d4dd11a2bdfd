package dev.writerfence.store.rpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.schema.LeaseRpcCompatibility;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The lease-RPC pair takes its TTL in whole seconds: a store caller's TTL that is not whole seconds
 * (a ShedLock lock on this backend) is rounded up, never down, and the lease says so (ADR 62).
 */
class LeaseRpcTtlTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  @Test
  void aTtlThatIsNotWholeSecondsIsRoundedUpToThePairsSeconds() throws SQLException {
    // A database of its own: the pair lives in schema public under fixed names.
    DB.execute(
        "DROP DATABASE IF EXISTS wf_rpc_ttl",
        "CREATE DATABASE wf_rpc_ttl ENCODING 'UTF8' TEMPLATE template0");
    DataSource dataSource = DB.dataSource("wf_rpc_ttl", "postgres", null);
    FenceSchema.defaults().install(dataSource);
    new LeaseRpcCompatibility(FenceSchema.defaults(), "rpc_ttl").install(dataSource);
    LeaseRpcStore store =
        new LeaseRpcStore(dataSource, LeaseRpcContract.defaults(), Duration.ofSeconds(10));

    StoreLease lease =
        store.acquire("rpc_ttl", UUID.randomUUID(), "rpc", Duration.ofMillis(1_200)).orElseThrow();

    assertThat(Duration.between(lease.acquiredAt(), lease.expiresAt()))
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(rowLifetime(dataSource, "rpc_ttl"))
        .as("the row the pair wrote")
        .isEqualTo(Duration.ofSeconds(2));
    assertThat(lease.release()).isTrue();
  }

  /** expires_at - acquired_at of a fence's row, read in that database. */
  private static Duration rowLifetime(DataSource dataSource, String fenceName) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT acquired_at, expires_at FROM writer_fence.lease_status"
                    + " WHERE fence_name = ?")) {
      ps.setString(1, fenceName);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return Duration.between(
            rs.getObject(1, OffsetDateTime.class), rs.getObject(2, OffsetDateTime.class));
      }
    }
  }
}
