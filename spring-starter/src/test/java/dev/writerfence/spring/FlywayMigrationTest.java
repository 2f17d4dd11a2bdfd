package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spring.actuate.WriterFenceHealthIndicator;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.testing.ContractTampering;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.OwnerAndAppRoles;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The starter's own Flyway run of the contract, beside the application's Flyway (whose {@code
 * db/migration/V1__app.sql} is this module's test resource): its schema and history table, a
 * contract installed before without Flyway taken over, and the switch that turns it off.
 */
class FlywayMigrationTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @Test
  void theContractMigratesIntoItsSchemaWithItsOwnHistoryTable() {
    String database = freshDatabase();
    String schema = "wf_fw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    runner(database)
        .withPropertyValues(
            "writer-fence.schema.name=" + schema,
            "writer-fence.schema.flyway.table=contract_history")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              JdbcTemplate jdbc = jdbc(database);
              assertThat(versions(jdbc, "public.flyway_schema_history")).containsExactly("1");
              assertThat(versions(jdbc, schema + ".contract_history"))
                  .containsExactly("1", "2", "3", "4", "5", "6");
              assertThat(
                      new JdbcTemplate(context.getBean(DataSource.class))
                          .queryForObject("SHOW client_min_messages", String.class))
                  .as("the run's quieted notices end with its transactions, not in the pool")
                  .isEqualTo("notice");
              assertThat(context.getBean(WriterFenceHealthIndicator.class).health(true).getStatus())
                  .isEqualTo(Status.UP);
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease =
                  fence.tryAcquire(FenceRequest.builder("corpus").build()).orElseThrow();
              assertThat(lease.fencingToken()).isEqualTo(FencingTokens.first(1));
              assertThat(fence.release(lease)).isTrue();
            });
  }

  @Test
  void aContractInstalledWithoutFlywayIsTakenOverAndKeepsItsRows() throws Exception {
    String database = freshDatabase();
    FenceSchema.defaults().install(db.dataSource(database, "postgres", null));
    WriterFence before = WriterFence.builder(db.dataSource(database, "postgres", null)).build();
    FenceLease first = before.tryAcquire(FenceRequest.builder("corpus").build()).orElseThrow();
    assertThat(before.release(first)).isTrue();
    before.close();

    runner(database)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(versions(jdbc(database), "writer_fence.writer_fence_flyway_history"))
                  .containsExactly("0", "1", "2", "3", "4", "5", "6");
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease =
                  fence.tryAcquire(FenceRequest.builder("corpus").build()).orElseThrow();
              assertThat(lease.fencingToken()).isEqualTo(first.fencingToken() + 1);
              assertThat(fence.release(lease)).isTrue();
            });
  }

  @Test
  void aVersion1InstallWithoutFlywayIsUpgradedKeepingItsRowsAndTokens() {
    String database = freshDatabase();
    JdbcTemplate jdbc = jdbc(database);
    jdbc.execute(ContractTampering.version1Alone("writer_fence"));
    Long first =
        jdbc.queryForObject(
            "SELECT writer_fence.acquire('corpus', gen_random_uuid(), 'v1', 60)", Long.class);

    runner(database)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(jdbc.queryForObject("SELECT writer_fence.schema_version()", Integer.class))
                  .isEqualTo(FenceSchema.VERSION);
              assertThat(
                      jdbc.queryForObject(
                          "SELECT fencing_token FROM writer_fence.lease_status", Long.class))
                  .isEqualTo(first);
              assertThat(
                      jdbc.queryForObject(
                          "SELECT state FROM writer_fence.lease_status", String.class))
                  .as("the V1 lease is still held")
                  .isEqualTo("held");
            });
  }

  @Test
  void aNewerContractVersionStopsTheStartNamingBothAndIsNotDowngraded() throws Exception {
    String database = freshDatabase();
    FenceSchema.defaults().install(db.dataSource(database, "postgres", null));
    int newer = FenceSchema.VERSION + 1;
    JdbcTemplate jdbc = jdbc(database);
    jdbc.execute(ContractTampering.schemaVersionAnswering("writer_fence", newer));

    runner(database)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .hasMessageContaining(ContractTampering.newerVersionRefused(newer));
            });
    assertThat(jdbc.queryForObject("SELECT writer_fence.schema_version()", Integer.class))
        .isEqualTo(newer);
  }

  @Test
  void turnedOffTheContractIsLeftAloneAndHealthSaysItIsMissing() {
    String database = freshDatabase();
    runner(database)
        .withPropertyValues("writer-fence.schema.flyway.enabled=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(versions(jdbc(database), "public.flyway_schema_history"))
                  .containsExactly("1");
              var health = context.getBean(WriterFenceHealthIndicator.class).health(true);
              assertThat(health.getStatus()).isEqualTo(Status.DOWN);
              assertThat(String.valueOf(health.getDetails().get("error")))
                  .contains("writer_fence is missing");
            });
  }

  @Test
  void writerFenceSchemaFlywayUserInstallsTheContractWhileTheApplicationsFlywayKeepsItsUser() {
    OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
    String owner = roles.owner();
    String app = roles.app();
    String database = roles.database(db, true);
    JdbcTemplate jdbc = jdbc(database);

    runner(database)
        .withPropertyValues(
            "spring.datasource.username=" + app,
            "spring.datasource.password=" + OwnerAndAppRoles.APP_PASSWORD,
            "spring.flyway.user=" + app,
            "spring.flyway.password=" + OwnerAndAppRoles.APP_PASSWORD,
            "writer-fence.schema.flyway.user=" + owner,
            "writer-fence.schema.flyway.password=" + OwnerAndAppRoles.OWNER_PASSWORD)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(
                      jdbc.queryForList(
                          "SELECT DISTINCT installed_by FROM public.flyway_schema_history",
                          String.class))
                  .as("the application's Flyway ran as spring.flyway.user")
                  .containsExactly(app);
              assertThat(
                      jdbc.queryForList(
                          "SELECT DISTINCT installed_by"
                              + " FROM writer_fence.writer_fence_flyway_history",
                          String.class))
                  .as("the contract's as writer-fence.schema.flyway.user")
                  .containsExactly(owner);
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease =
                  fence.tryAcquire(FenceRequest.builder("corpus").build()).orElseThrow();
              assertThat(fence.release(lease)).as("the application's role fences").isTrue();
            });
  }

  @Test
  void writerFenceSchemaFlywayUrlConnectsTheContractsRunWithItsOwnUserAndPassword() {
    OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
    String database = roles.database(db, true);
    JdbcTemplate jdbc = jdbc(database);

    runner(database)
        .withPropertyValues(
            "spring.datasource.username=" + roles.app(),
            "spring.datasource.password=" + OwnerAndAppRoles.APP_PASSWORD,
            "writer-fence.schema.flyway.url=" + db.jdbcUrl(database),
            "writer-fence.schema.flyway.user=" + roles.owner(),
            "writer-fence.schema.flyway.password=" + OwnerAndAppRoles.OWNER_PASSWORD)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(OwnerAndAppRoles.leaseOwner(db, database)).isEqualTo(roles.owner());
              WriterFence fence = context.getBean(WriterFence.class);
              FenceLease lease =
                  fence.tryAcquire(FenceRequest.builder("corpus").build()).orElseThrow();
              assertThat(fence.release(lease)).as("the application's role fences").isTrue();
            });
  }

  @Test
  void aFlywayUrlThatIsNotPostgresqlStopsTheStartNamingTheProperty() {
    runner(freshDatabase())
        .withPropertyValues("writer-fence.schema.flyway.url=jdbc:h2:mem:contract")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .hasMessageContaining("writer-fence.schema.flyway.url")
                  .hasMessageContaining("jdbc:h2:mem:contract")
                  .hasMessageContaining("a jdbc:postgresql: URL");
            });
  }

  private String freshDatabase() {
    String database = "wf_fw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    db.execute("CREATE DATABASE " + database + " ENCODING 'UTF8' TEMPLATE template0");
    return database;
  }

  private JdbcTemplate jdbc(String database) {
    return new JdbcTemplate(db.dataSource(database, "postgres", null));
  }

  private static List<String> versions(JdbcTemplate jdbc, String table) {
    return jdbc.queryForList(
        "SELECT version FROM "
            + table
            + " WHERE success AND version IS NOT NULL ORDER BY installed_rank",
        String.class);
  }

  private ApplicationContextRunner runner(String database) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                FlywayAutoConfiguration.class,
                WriterFenceAutoConfiguration.class,
                WriterFenceActuatorAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(database),
            "spring.datasource.username=postgres",
            "writer-fence.schema.initialize=false");
  }
}
