package dev.writerfence.spring.adopt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.OwnerAndAppRoles;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The production model of docs/operations.md on one Spring Boot line: an owner role installs the
 * contract, the application's role (CONNECT on the database, CREATE on its own schema {@code
 * public}, no CREATE on the database) only executes it. The starter's Flyway run installs as the
 * owner given in {@code spring.flyway.user}; with a contract installed before by the owner it has
 * nothing to do as the application's role; with neither, the start-up stops naming the ways out
 * (ADR 63). Each line's module runs it in a subclass.
 */
@ExtendWith(OutputCaptureExtension.class)
public abstract class ProductionModelContract {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  /**
   * @return the Spring Boot line the subclass runs on, e.g. {@code 3.5}
   */
  protected abstract String springBootLine();

  @Test
  void theStartersFlywayRunInstallsAsTheOwnerAndTheApplicationsRoleFences(CapturedOutput output) {
    assertThat(SpringBootVersion.getVersion()).startsWith(springBootLine() + ".");
    OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
    String database = roles.database(db, true);

    try (ConfigurableApplicationContext app =
        start(
            database,
            roles.app(),
            "spring.flyway.user=" + roles.owner(),
            "spring.flyway.password=" + OwnerAndAppRoles.OWNER_PASSWORD)) {
      JdbcTemplate jdbc = new JdbcTemplate(db.dataSource(database, "postgres", null));
      assertThat(
              jdbc.queryForObject(
                  "SELECT has_database_privilege(?, current_database(), 'CREATE')",
                  Boolean.class,
                  roles.app()))
          .as("the application's role may not create a schema")
          .isFalse();
      assertThat(OwnerAndAppRoles.leaseOwner(db, database)).isEqualTo(roles.owner());
      assertThat(
              jdbc.queryForList(
                  "SELECT DISTINCT installed_by FROM writer_fence.writer_fence_flyway_history",
                  String.class))
          .containsExactly(roles.owner());
      fencesAsTheApplicationsRole(app, jdbc, roles.app());
    }
    assertThat(output.getAll())
        .as("no WARN of PostgreSQL's notice 'schema ... already exists, skipping'")
        .doesNotContain("already exists");
  }

  @Test
  void aContractInstalledBeforeByTheOwnerLeavesTheRunNothingToDoAsTheApplicationsRole()
      throws Exception {
    OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
    String database = roles.database(db, true);
    FenceSchema.defaults().grantTo(roles.app()).install(roles.ownerDataSource(db, database));

    // writer-fence.schema.flyway.enabled left on, no spring.flyway.user: both runs as the app.
    try (ConfigurableApplicationContext app = start(database, roles.app())) {
      JdbcTemplate jdbc = new JdbcTemplate(db.dataSource(database, "postgres", null));
      assertThat(
              jdbc.queryForObject(
                  "SELECT to_regclass('writer_fence.writer_fence_flyway_history') IS NULL",
                  Boolean.class))
          .as("no Flyway run of the contract")
          .isTrue();
      fencesAsTheApplicationsRole(app, jdbc, roles.app());
    }
  }

  @Test
  void theApplicationsRoleAloneWithoutAContractStopsTheStartNamingTheWaysOut() {
    OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
    String database = roles.database(db, true);

    Throwable failure = catchThrowable(() -> start(database, roles.app()).close());

    assertThat(failure).isNotNull();
    Throwable cause = failure;
    while (!String.valueOf(cause.getMessage()).startsWith("writer-fence: permission denied")
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    assertThat(cause)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("writer-fence: permission denied for database " + database)
        .hasMessageContaining("role '" + roles.app() + "'")
        .hasMessageContaining("spring.flyway.user")
        .hasMessageContaining("writer-fence.schema.flyway.user")
        .hasMessageContaining("writer-fence.schema.flyway.enabled=false");
  }

  @Test
  void theMigratingGuidesPropertiesInstallAsTheOwnerAndTheJobsRoleFences() throws IOException {
    Properties documented = documentedProperties();
    String app = documented.getProperty("spring.datasource.username");
    String owner = documented.getProperty("spring.flyway.user");
    // The guide's role names, made once in this JVM's server; passwords as the guide has them.
    OwnerAndAppRoles roles = OwnerAndAppRoles.named(db, owner, app);
    db.execute(
        "ALTER ROLE "
            + owner
            + " PASSWORD '"
            + documented.getProperty("spring.flyway.password")
            + "'",
        "ALTER ROLE "
            + app
            + " PASSWORD '"
            + documented.getProperty("spring.datasource.password")
            + "'");
    String database = roles.database(db, true);

    List<String> properties = new ArrayList<>();
    documented.forEach((k, v) -> properties.add(k + "=" + v));
    properties.add("spring.datasource.url=" + db.jdbcUrl(database));
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(MigratingApp.class)
            .properties(common())
            .properties(properties.toArray(String[]::new))
            .run()) {
      JdbcTemplate jdbc = new JdbcTemplate(db.dataSource(database, "postgres", null));
      assertThat(OwnerAndAppRoles.leaseOwner(db, database)).isEqualTo(owner);
      fencesAsTheApplicationsRole(context, jdbc, app);
    }
  }

  /** The first {@code ```properties} block of docs/migrating-from-shedlock.md, as it stands. */
  private static Properties documentedProperties() throws IOException {
    String guide = Files.readString(Path.of("..", "docs", "migrating-from-shedlock.md"));
    Matcher block =
        Pattern.compile("```properties\\n(.*?)\\n\\s*```", Pattern.DOTALL).matcher(guide);
    assertThat(block.find()).as("docs/migrating-from-shedlock.md has a properties block").isTrue();
    Properties p = new Properties();
    p.load(new StringReader(block.group(1).replaceAll("(?m)^ +", "")));
    assertThat(p.stringPropertyNames())
        .containsExactlyInAnyOrder(
            "spring.datasource.username",
            "spring.datasource.password",
            "spring.flyway.user",
            "spring.flyway.password");
    return p;
  }

  private static void fencesAsTheApplicationsRole(
      ConfigurableApplicationContext app, JdbcTemplate jdbc, String appRole) {
    WriterFence fence = app.getBean(WriterFence.class);
    FenceLease lease =
        fence.tryAcquire(FenceRequest.builder("nightly-export").build()).orElseThrow();
    assertThat(
            jdbc.queryForObject(
                "SELECT state FROM writer_fence.lease_status WHERE fence_name = 'nightly-export'",
                String.class))
        .isEqualTo("held");
    assertThat(fence.release(lease)).isTrue();
    assertThat(
            app.getBean(org.springframework.core.env.Environment.class)
                .getProperty("spring.datasource.username"))
        .isEqualTo(appRole);
  }

  private static ConfigurableApplicationContext start(
      String database, String appRole, String... more) {
    return new SpringApplicationBuilder(MigratingApp.class)
        .properties(common())
        .properties(
            "spring.datasource.url=" + EmbeddedDatabase.get().jdbcUrl(database),
            "spring.datasource.username=" + appRole,
            "spring.datasource.password=" + OwnerAndAppRoles.APP_PASSWORD)
        .properties(more)
        .run();
  }

  private static String[] common() {
    return new String[] {
      "spring.main.web-application-type=none",
      "spring.main.banner-mode=off",
      "spring.liquibase.enabled=false",
      "logging.level.root=WARN",
      "logging.level.dev.writerfence=INFO"
    };
  }
}
