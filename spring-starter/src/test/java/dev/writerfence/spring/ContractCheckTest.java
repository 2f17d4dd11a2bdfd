package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spring.actuate.WriterFenceHealthCheck;
import dev.writerfence.spring.boot.WriterFenceActuatorAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceContractCheck;
import dev.writerfence.spring.boot.WriterFenceContractCheckAutoConfiguration;
import dev.writerfence.spring.boot.WriterFenceDataSource;
import dev.writerfence.spring.boot.WriterFenceProperties;
import dev.writerfence.spring.boot.WriterFenceStartupException;
import dev.writerfence.testing.ContractTampering;
import dev.writerfence.testing.EmbeddedDatabase;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The start-up contract check ({@code writer-fence.schema.check}) case by case on Spring Boot 4
 * (the start-up as a new user sees it, on both lines, is {@code StartupDiagnosticsContract}): an
 * older or newer contract, {@code off} running no query, a backend without the contract left alone
 * (and its health up), a role without CREATE on the database, a database that refuses the
 * connection, and the setting's rule.
 */
@ExtendWith(OutputCaptureExtension.class)
class ContractCheckTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  private ApplicationContextRunner runner(DataSource dataSource) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                AopAutoConfiguration.class,
                WriterFenceAutoConfiguration.class,
                WriterFenceContractCheckAutoConfiguration.class))
        .withBean(DataSource.class, () -> dataSource);
  }

  @Test
  void withFlywayTheCheckReadsTheContractTheStartersRunMigrated(CapturedOutput output) {
    String database = freshDatabase();
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataSourceAutoConfiguration.class,
                FlywayAutoConfiguration.class,
                WriterFenceAutoConfiguration.class,
                WriterFenceContractCheckAutoConfiguration.class))
        .withPropertyValues(
            "spring.datasource.url=" + db.jdbcUrl(database),
            "spring.datasource.username=postgres",
            "writer-fence.schema.check=fail")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(output.getAll())
                  .contains("SQL contract migrated by Flyway in schema writer_fence")
                  .doesNotContain("WriterFenceContractCheck");
            });
  }

  @Test
  void anOlderContractIsAWarningNamingBothVersionsAndTheUpgrade(CapturedOutput output) {
    String database = freshDatabase();
    DataSource ds = db.dataSource(database, "postgres", null);
    execute(ds, ContractTampering.version1Alone("writer_fence"));
    runner(ds)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(output.getAll())
                  .contains(
                      "writer-fence: schema writer_fence holds the SQL contract version 1, older"
                          + " than version "
                          + FenceSchema.VERSION
                          + " that this writer-fence expects")
                  .contains("Upgrade it in place, keeping every lease, with one of:");
            });
  }

  @Test
  void aNewerContractStopsTheStartUpInFailModeNamingBothVersions() {
    String database = freshDatabase();
    DataSource ds = db.dataSource(database, "postgres", null);
    install(ds);
    execute(ds, ContractTampering.schemaVersionAnswering("writer_fence", FenceSchema.VERSION + 1));
    runner(ds)
        .withPropertyValues("writer-fence.schema.check=FAIL")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .isInstanceOf(WriterFenceStartupException.class)
                  .hasMessageContaining(
                      "holds the SQL contract version "
                          + (FenceSchema.VERSION + 1)
                          + ", newer than version "
                          + FenceSchema.VERSION);
            });
  }

  @Test
  void offRunsNoQueryAndWarnConnects(CapturedOutput output) {
    String database = freshDatabase();
    AtomicInteger connections = new AtomicInteger();
    DataSource counting =
        new DelegatingDataSource(db.dataSource(database, "postgres", null)) {
          @Override
          public Connection getConnection() throws SQLException {
            connections.incrementAndGet();
            return super.getConnection();
          }
        };
    // initialize=false: unset, the initializer asks the database whether it is embedded.
    runner(counting)
        .withPropertyValues("writer-fence.schema.check=off", "writer-fence.schema.initialize=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed().hasSingleBean(WriterFenceContractCheck.class);
              assertThat(connections).as("connections taken at start-up").hasValue(0);
            });
    assertThat(output.getAll()).doesNotContain("SQL contract is not installed");

    runner(counting)
        .withPropertyValues("writer-fence.schema.initialize=false")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(connections).as("the check's connection").hasValue(1);
            });
    assertThat(output.getAll()).contains("SQL contract is not installed");
  }

  @Test
  void yamlsUnquotedOffIsOffAndAnotherWordStopsTheStartUpNamingTheRule() {
    DataSource ds = db.dataSource(freshDatabase(), "postgres", null);
    runner(ds)
        .withPropertyValues("writer-fence.schema.check=false")
        .run(context -> assertThat(context).hasNotFailed());
    runner(ds)
        .withPropertyValues("writer-fence.schema.check=maybe")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .hasMessageContaining("writer-fence.schema.check")
                  .hasMessageContaining("'maybe' is not allowed: warn, fail or off");
            });
  }

  @Test
  void aBackendWithoutTheContractIsNotCheckedAndItsHealthIsUp(CapturedOutput output)
      throws Exception {
    DataSource ds = db.dataSource(freshDatabase(), "postgres", null);
    runner(ds)
        .withPropertyValues(
            "writer-fence.backend=lease-rpc",
            "writer-fence.schema.check=fail",
            "writer-fence.lease-rpc.fence-name-parameter=p_fence_name")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              WriterFenceHealthCheck.Outcome health =
                  WriterFenceActuatorAutoConfiguration.healthCheck(
                          context.getBean(WriterFenceDataSource.class),
                          context.getBean(WriterFenceProperties.class))
                      .check();
              assertThat(health.status()).isEqualTo("UP");
              assertThat(health.details()).containsOnlyKeys("backend");
            });
    assertThat(output.getAll()).doesNotContain("SQL contract");

    WriterFenceHealthCheck.Outcome lease =
        new WriterFenceHealthCheck(ds, "writer_fence", 5, "lease").check();
    assertThat(lease.status()).as("the same database for the lease row").isEqualTo("DOWN");
  }

  @Test
  void aRoleWithoutCreateOnTheDatabaseIsCheckedByTheContractsVersion() {
    String database = freshDatabase();
    String role = "wf_check_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    db.execute("CREATE ROLE " + role + " LOGIN");
    DataSource owner = db.dataSource(database, "postgres", null);
    DataSource app = db.dataSource(database, role, null);

    assertThat(check(app).map(Throwable::getMessage))
        .hasValueSatisfying(m -> assertThat(m).contains("SQL contract is not installed"));

    try {
      FenceSchema.defaults().grantTo(role).install(owner);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    assertThat(check(app)).isEmpty();

    execute(owner, ContractTampering.schemaVersionAnswering("writer_fence", 2));
    assertThat(check(app).map(Throwable::getMessage))
        .hasValueSatisfying(m -> assertThat(m).contains("version 2, older than version"));
  }

  @Test
  void aRefusedConnectionLeadsWithTheDatabasesReasonAndNamesTheUrl() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    PGSimpleDataSource refusing = new PGSimpleDataSource();
    refusing.setURL("jdbc:postgresql://127.0.0.1:" + closed + "/postgres");
    refusing.setUser("postgres");

    WriterFenceStartupException problem = check(refusing).orElseThrow();
    assertThat(problem.getDescription())
        .startsWith("writer-fence: Connection to 127.0.0.1:" + closed + " refused")
        .contains("(SQLState 08001): the start-up check could not read the SQL contract");
    assertThat(problem.getAction())
        .startsWith("Check spring.datasource.url (host, port, database)");
  }

  private static Optional<WriterFenceStartupException> check(DataSource dataSource) {
    return new WriterFenceContractCheck(
            WriterFenceDataSource.shared(dataSource), new WriterFenceProperties())
        .check();
  }

  private String freshDatabase() {
    String database = "wf_check_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    db.execute("CREATE DATABASE " + database + " ENCODING 'UTF8' TEMPLATE template0");
    return database;
  }

  private static void install(DataSource ds) {
    try {
      FenceSchema.defaults().install(ds);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void execute(DataSource ds, String sql) {
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement()) {
      st.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
