package dev.writerfence.spring.startup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a new user sees at start-up when the set-up is not complete, on one Spring Boot line: the
 * contract check ({@code writer-fence.schema.check}) warns about a missing contract before the
 * application reports itself started, or stops the start-up; and Spring Boot's failure analysis,
 * printed by its own reporter, names what to set when there is no DataSource or the database
 * refuses the password. Written against API that Spring Boot 3.5 and 4.0 share; each line's module
 * runs it in a subclass.
 */
@ExtendWith(OutputCaptureExtension.class)
public abstract class StartupDiagnosticsContract {
  /** A role that must log in with its password (the embedded server trusts every other one). */
  private static final String PASSWORD_ROLE = "wf_startup_pw";

  private static final String FAILURE_REPORT = "APPLICATION FAILED TO START";

  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  /**
   * @return the Spring Boot line the subclass runs on, e.g. {@code 3.5}
   */
  protected abstract String springBootLine();

  /**
   * @return the name of Spring Boot's DataSource auto-configuration on that line (it moved in 4.0)
   */
  protected abstract String dataSourceAutoConfiguration();

  @Test
  void aMissingContractIsAWarningBeforeStartedNamingTheWaysToInstallIt(CapturedOutput output) {
    assertThat(SpringBootVersion.getVersion()).startsWith(springBootLine() + ".");
    String database = freshDatabase();
    try (ConfigurableApplicationContext app = start(database, "postgres", null)) {
      assertThat(app.isRunning()).isTrue();
    }
    String log = output.getAll();
    String warning =
        "WriterFenceContractCheck - writer-fence: the SQL contract is not installed in schema"
            + " writer_fence (found none, expected version "
            + FenceSchema.VERSION
            + ")";
    assertThat(log.lines().filter(line -> line.contains(warning)))
        .singleElement()
        .asString()
        .contains(" WARN ");
    assertThat(log)
        .contains("writer-fence.schema.initialize=true")
        .contains("writer-fence.schema.flyway.enabled=true")
        .contains("writer-fence schema install --jdbc-url " + db.jdbcUrl(database))
        .contains("--grant-to postgres")
        .contains("writer-fence.schema.check=fail stops the start-up instead");
    assertThat(log.indexOf(warning))
        .as("warned before the application reported itself started")
        .isLessThan(log.indexOf("Started StartupApp"));
  }

  @Test
  void checkFailStopsTheStartUpAndTheFailureAnalysisSaysHowToInstall(CapturedOutput output) {
    String database = freshDatabase();
    assertThatThrownBy(() -> start(database, "postgres", null, "writer-fence.schema.check=fail"))
        .hasMessageContaining("the SQL contract is not installed in schema writer_fence");
    assertThat(analysis(output))
        .contains(
            "Description:\n\nwriter-fence: the SQL contract is not installed in schema"
                + " writer_fence (found none, expected version "
                + FenceSchema.VERSION
                + ")")
        .contains("Action:\n\nInstall it with one of: writer-fence.schema.initialize=true");
  }

  @Test
  void anInstalledContractIsNoWarningAndTheFenceWorks(CapturedOutput output) throws Exception {
    String database = freshDatabase();
    FenceSchema.defaults().install(db.dataSource(database, "postgres", null));
    try (ConfigurableApplicationContext app =
        start(database, "postgres", null, "writer-fence.schema.check=fail")) {
      assertThat(app.getBean(StartupApp.Uploads.class).put("b")).isEqualTo("b");
    }
    assertThat(output.getAll()).doesNotContain("WriterFenceContractCheck").contains("Started");
  }

  @Test
  void noDataSourceIsAFailureAnalysisNamingSpringDatasourceUrl(CapturedOutput output) {
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(StartupApp.class)
                    .properties(common())
                    .properties("spring.autoconfigure.exclude=" + dataSourceAutoConfiguration())
                    .run())
        .hasMessageContaining("writer-fence needs a DataSource");
    assertThat(analysis(output))
        .contains("Description:\n\nwriter-fence needs a DataSource: the fence keeps its leases")
        .contains("Action:\n\nSet spring.datasource.url=jdbc:postgresql://")
        .contains("writer-fence.datasource.url")
        .contains("writer-fence.enabled=false");
  }

  @Test
  void aWrongPasswordIsAWarningLeadingWithTheDatabasesReason(CapturedOutput output)
      throws Exception {
    requirePassword();
    String database = freshDatabase();
    try (ConfigurableApplicationContext app = start(database, PASSWORD_ROLE, "wrong")) {
      assertThat(app.isRunning()).isTrue();
    }
    assertThat(output.getAll())
        .contains(
            "WriterFenceContractCheck - writer-fence: FATAL: password authentication failed for"
                + " user \""
                + PASSWORD_ROLE
                + "\" (SQLState 28P01): the start-up check could not read the SQL contract")
        .contains("Check spring.datasource.username and spring.datasource.password");
  }

  @Test
  void aWrongPasswordWhereTheStarterInstallsIsAFailureAnalysisLeadingWithTheCause(
      CapturedOutput output) throws Exception {
    requirePassword();
    String database = freshDatabase();
    assertThatThrownBy(
        () -> start(database, PASSWORD_ROLE, "wrong", "writer-fence.schema.initialize=true"));
    assertThat(analysis(output))
        .contains(
            "Description:\n\nwriter-fence: FATAL: password authentication failed for user \""
                + PASSWORD_ROLE
                + "\" (SQLState 28P01), connecting to "
                + db.jdbcUrl(database)
                + " as "
                + PASSWORD_ROLE
                + ": the database refused the fence's connection at start-up")
        .contains(
            "Action:\n\nCheck spring.datasource.username and spring.datasource.password (the role"
                + " must exist, may log in");
  }

  private ConfigurableApplicationContext start(
      String database, String user, String password, String... more) {
    List<String> properties = new ArrayList<>(List.of(common()));
    properties.add("spring.datasource.url=" + db.jdbcUrl(database));
    properties.add("spring.datasource.username=" + user);
    if (password != null) {
      properties.add("spring.datasource.password=" + password);
    }
    properties.addAll(List.of(more));
    return new SpringApplicationBuilder(StartupApp.class)
        // Its "Started StartupApp" line, under its logger (else the test runner's main class).
        .main(StartupApp.class)
        .properties(properties.toArray(String[]::new))
        .run();
  }

  private static String[] common() {
    return new String[] {
      "spring.main.web-application-type=none",
      "spring.main.banner-mode=off",
      // Neither migration tool: the contract comes only from what a test installs.
      "spring.flyway.enabled=false",
      "spring.liquibase.enabled=false",
      "spring.datasource.hikari.connection-timeout=5000",
      "logging.level.root=WARN",
      "logging.level.dev.writerfence=INFO",
      "logging.level.dev.writerfence.spring.startup=INFO"
    };
  }

  /** Spring Boot's report, from its banner on, with line ends made plain. */
  private static String analysis(CapturedOutput output) {
    String all = output.getAll().replace("\r\n", "\n");
    int start = all.indexOf(FAILURE_REPORT);
    assertThat(start).as("Spring Boot printed a failure analysis:%n%s", all).isNotNegative();
    return all.substring(start);
  }

  private String freshDatabase() {
    String database = "wf_start_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    db.execute("CREATE DATABASE " + database + " ENCODING 'UTF8' TEMPLATE template0");
    return database;
  }

  /**
   * Makes the server ask {@link #PASSWORD_ROLE} for its password ({@code scram-sha-256}), by a rule
   * put before the embedded server's {@code trust} rules and a reload, then waits until the server
   * refuses a wrong password (a reload is asynchronous).
   */
  private void requirePassword() throws IOException, InterruptedException {
    db.execute(
        "DO $$ BEGIN CREATE ROLE "
            + PASSWORD_ROLE
            + " LOGIN PASSWORD 'right'; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
    Path hba = Path.of(db.queryValue(String.class, "SHOW hba_file"));
    String rule = "host all " + PASSWORD_ROLE + " 127.0.0.1/32 scram-sha-256";
    List<String> lines = new ArrayList<>(Files.readAllLines(hba, StandardCharsets.UTF_8));
    if (!lines.contains(rule)) {
      lines.add(0, rule);
      Files.write(hba, lines, StandardCharsets.UTF_8);
      db.execute("SELECT pg_reload_conf()");
    }
    for (int attempt = 0; attempt < 200; attempt++) {
      try {
        db.dataSource(PASSWORD_ROLE, "wrong").getConnection().close();
        Thread.sleep(50); // the reload has not reached the postmaster yet
      } catch (SQLException refused) {
        assertThat(refused.getSQLState()).isEqualTo("28P01");
        return;
      }
    }
    throw new AssertionError("the server still accepts a wrong password for " + PASSWORD_ROLE);
  }
}
