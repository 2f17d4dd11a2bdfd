package com.example;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.OwnerAndAppRoles;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The application as docs/operations.md runs it in production, on the starter alone (not the test
 * kit's fence): an owner role owns the database and installs the SQL contract through the starter's
 * Flyway run ({@code spring.flyway.user} and {@code .password}), the application's role may connect
 * and nothing more, and {@code spring.datasource.*} is that role. The embedded PostgreSQL is the
 * test kit's; the two roles and the database are made there as the operations guide has them.
 */
@SpringBootTest(
    properties = {
      // The quick start's first try (application.properties) installs as the application's role;
      // production leaves the install to the owner's Flyway run.
      "writer-fence.schema.initialize=false"
    })
@ExtendWith(OutputCaptureExtension.class)
class ProductionModelTest {
  private static final EmbeddedDatabase SERVER = EmbeddedDatabase.get();

  /** Two roles of their own; the database is the owner's, CONNECT on it for the app role alone. */
  private static final OwnerAndAppRoles ROLES = OwnerAndAppRoles.create(SERVER);

  private static final String DATABASE = ROLES.database(SERVER, false);

  @DynamicPropertySource
  static void productionProperties(DynamicPropertyRegistry registry) {
    registry.add("spring.datasource.url", () -> SERVER.jdbcUrl(DATABASE));
    registry.add("spring.datasource.username", ROLES::app);
    registry.add("spring.datasource.password", () -> OwnerAndAppRoles.APP_PASSWORD);
    registry.add("spring.flyway.user", ROLES::owner);
    registry.add("spring.flyway.password", () -> OwnerAndAppRoles.OWNER_PASSWORD);
  }

  @Autowired Uploads uploads; // the application's bean, advised by the starter's own fence
  @Autowired UploadsTest.FakeStorage storage; // fails a write made without a valid lease
  @Autowired Environment environment;

  @Test
  void theOwnerInstallsTheContractAndTheApplicationsRoleFences(CapturedOutput output) {
    JdbcTemplate superuser = new JdbcTemplate(SERVER.dataSource(DATABASE, "postgres", null));
    assertThat(environment.getProperty("spring.datasource.username")).isEqualTo(ROLES.app());

    assertThat(
            superuser.queryForList(
                "SELECT DISTINCT pg_get_userbyid(p.proowner) FROM pg_proc p"
                    + " JOIN pg_namespace n ON n.oid = p.pronamespace"
                    + " WHERE n.nspname = 'writer_fence'",
                String.class))
        .as("the owners of the contract's functions")
        .containsExactly(ROLES.owner());
    assertThat(OwnerAndAppRoles.leaseOwner(SERVER, DATABASE)).isEqualTo(ROLES.owner());
    assertThat(
            superuser.queryForList(
                "SELECT DISTINCT installed_by FROM writer_fence.writer_fence_flyway_history",
                String.class))
        .as("who ran the starter's Flyway run of the contract")
        .containsExactly(ROLES.owner());
    for (String function :
        List.of(
            "writer_fence.acquire(text, uuid, text, integer)",
            "writer_fence.release(text, uuid)",
            "writer_fence.schema_version()")) {
      assertThat(
              superuser.queryForObject(
                  "SELECT has_function_privilege(?, ?, 'EXECUTE')",
                  Boolean.class,
                  ROLES.app(),
                  function))
          .as("EXECUTE on " + function + " for the application's role")
          .isTrue();
    }
    assertThat(
            superuser.queryForObject(
                "SELECT has_database_privilege(?, current_database(), 'CREATE')"
                    + " OR has_schema_privilege(?, 'writer_fence', 'CREATE')"
                    + " OR has_schema_privilege(?, 'public', 'CREATE')",
                Boolean.class,
                ROLES.app(),
                ROLES.app(),
                ROLES.app()))
        .as("the application's role may create nothing")
        .isFalse();

    uploads.put("photos", Map.of("a.txt", "a".getBytes(UTF_8), "b.txt", "b".getBytes(UTF_8)));

    Map<String, Object> lease =
        superuser.queryForMap(
            "SELECT holder_label, fencing_token, state FROM writer_fence.lease_status"
                + " WHERE fence_name = 'bucket:photos'");
    assertThat(storage.objects).containsOnlyKeys("photos/a.txt", "photos/b.txt");
    assertThat(storage.objects.values())
        .as("each object stamped with the fencing token of the application's lease")
        .containsOnly(((Number) lease.get("fencing_token")).longValue());
    assertThat((String) lease.get("holder_label")).startsWith("upload");
    assertThat(lease.get("state")).as("released after the call").isEqualTo("free");

    assertThat(output.getAll())
        .as("no WARN of PostgreSQL's notice 'schema ... already exists, skipping'")
        .doesNotContain("already exists");
    assertThat(output.getAll().lines().filter(line -> line.contains(" WARN ")))
        .as("no WARN of the starter's start-up contract check")
        .noneMatch(line -> line.contains("WriterFenceContractCheck"));
    assertThat(output.getAll())
        .as("the contract check's warning")
        .doesNotContain("writer-fence.schema.check=fail stops the start-up");
  }

  @TestConfiguration
  static class Fakes {
    @Bean
    @Primary
    UploadsTest.FakeStorage fakeStorage() {
      return new UploadsTest.FakeStorage();
    }
  }
}
