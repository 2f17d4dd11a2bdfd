package dev.writerfence.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.WriterFence;
import dev.writerfence.testing.EmbeddedDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/** The migration shipped in the core jar runs under Flyway exactly as the README tells users. */
class FlywayMigrationTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @Test
  void shippedMigrationRunsUnderFlywayWithTheTwoPlaceholders() throws SQLException {
    String schema = "wf_flyway_" + Math.abs(ThreadLocalRandom.current().nextInt());
    String role = schema + "_app";
    db.execute("CREATE ROLE " + role + " LOGIN PASSWORD 'app'");

    Flyway flyway =
        Flyway.configure()
            .dataSource(db.dataSource())
            .schemas(schema)
            .locations("classpath:writer-fence/db/migration")
            .placeholders(Map.of("writer_fence_schema", schema, "writer_fence_role", role))
            .load();
    assertThat(flyway.migrate().migrationsExecuted)
        .isEqualTo(FenceSchema.MIGRATION_RESOURCES.size());
    assertThat(flyway.migrate().migrationsExecuted).as("nothing left to run").isZero();

    try (Connection c = db.dataSource().getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + schema + ".schema_version()")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(FenceSchema.VERSION);
    }

    // The granted role can take and free a lease through the functions Flyway installed.
    WriterFence fence = WriterFence.builder(db.dataSource(role, "app")).schema(schema).build();
    Optional<FenceLease> lease =
        fence.tryAcquire(
            FenceRequest.builder("flyway-corpus")
                .holderLabel("upload")
                .ttl(Duration.ofSeconds(30))
                .build());
    assertThat(lease).isPresent();
    assertThat(lease.get().fencingToken()).isEqualTo(FencingTokens.first(1));
    assertThat(fence.release(lease.get())).isTrue();
  }
}
