package dev.writerfence.shedlock;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.OwnerAndAppRoles;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.sql.DataSource;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/migrating-from-shedlock.md's Flyway run for applications without Spring Boot, compiled from
 * the guide as it stands and run as written: the owner role installs the contract in a run of its
 * own (its own history table), and the jobs' role, which may not create anything in the database,
 * then takes ShedLock locks on the lease row.
 */
class MigratingGuideFlywayRunTest {
  private static final Path GUIDE = Path.of("..", "docs", "migrating-from-shedlock.md");

  private final EmbeddedDatabase db = EmbeddedDatabase.get();

  @Test
  void theGuidesFlywayRunInstallsAsTheOwnerAndTheJobsRoleLocks(@TempDir Path work)
      throws Exception {
    Setup setup = Setup.create(db);
    Method migrate = documentedMigration(work);

    migrate.invoke(null, setup.owner(), setup.appRole());
    migrate.invoke(null, setup.owner(), setup.appRole());

    assertThat(strings(setup.owner(), "SELECT version FROM " + HISTORY))
        .as("applied once each, in the contract's own history")
        .containsExactlyElementsOf(shippedVersions(1));
    assertThat(strings(setup.owner(), "SELECT to_regclass('public.flyway_schema_history')::text"))
        .as("the application's history is not touched")
        .containsExactly((String) null);
    locksAsTheJobsRole(setup);
  }

  @Test
  void theGuidesFlywayRunTakesOverAContractInstalledWithoutFlyway(@TempDir Path work)
      throws Exception {
    Setup setup = Setup.create(db);
    FenceSchema.defaults().grantTo(setup.appRole()).install(setup.owner());

    documentedMigration(work).invoke(null, setup.owner(), setup.appRole());

    assertThat(strings(setup.owner(), "SELECT version FROM " + HISTORY))
        .containsExactlyElementsOf(shippedVersions(0));
    locksAsTheJobsRole(setup);
  }

  private static final String HISTORY =
      "writer_fence.writer_fence_flyway_history WHERE success AND version IS NOT NULL"
          + " ORDER BY installed_rank";

  /**
   * "from" (0: the baseline) and every migration core ships from there, as Flyway records them: the
   * versions of the migrations' file names ({@code V6__...}: 6), which need not be contiguous.
   */
  private static List<String> shippedVersions(int from) {
    return Stream.concat(
            from == 0 ? Stream.of("0") : Stream.empty(),
            FenceSchema.MIGRATION_RESOURCES.stream()
                .map(r -> r.replaceAll(".*/V(\\d+)__[^/]*$", "$1"))
                .filter(v -> Integer.parseInt(v) >= from))
        .toList();
  }

  private static void locksAsTheJobsRole(Setup setup) throws SQLException {
    assertThat(
            strings(
                setup.app(), "SELECT has_database_privilege(current_database(), 'CREATE')::text"))
        .containsExactly("false");
    WriterFenceLockProvider provider = new WriterFenceLockProvider(setup.app());
    Optional<SimpleLock> lock =
        provider.lock(
            new LockConfiguration(
                Instant.now(), "nightly-export", Duration.ofSeconds(30), Duration.ZERO));
    assertThat(lock).isPresent();
    assertThat(
            provider.lock(
                new LockConfiguration(
                    Instant.now(), "nightly-export", Duration.ofSeconds(30), Duration.ZERO)))
        .as("busy while held")
        .isEmpty();
    lock.get().unlock();
  }

  /** The guide's complete Java block that runs Flyway, compiled; its static migrate method. */
  private static Method documentedMigration(Path work) throws Exception {
    String guide = Files.readString(GUIDE);
    Matcher block = Pattern.compile("(?ms)^( *)```java complete\\n(.*?)\\n\\1```").matcher(guide);
    String code = null;
    while (block.find()) {
      if (block.group(2).contains("Flyway.configure()")) {
        // The block sits in a list item: its lines carry the fence's indentation.
        code = block.group(2).replaceAll("(?m)^" + block.group(1), "");
      }
    }
    assertThat(code).as("%s has a complete Java block running Flyway", GUIDE).isNotNull();
    Matcher type = Pattern.compile("(?m)^public\\s+final\\s+class\\s+(\\w+)").matcher(code);
    assertThat(type.find()).isTrue();
    Path source = work.resolve(type.group(1) + ".java");
    Files.writeString(source, code, UTF_8);
    Path classes = Files.createDirectories(work.resolve("classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    ByteArrayOutputStream errors = new ByteArrayOutputStream();
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    int status =
        javac.run(
            null,
            errors,
            errors,
            "--release",
            "17",
            "-proc:none",
            "-classpath",
            classPath,
            "-d",
            classes.toString(),
            source.toString());
    assertThat(status).as("the guide's block compiles: %s", errors.toString(UTF_8)).isZero();
    URLClassLoader loader =
        new URLClassLoader(
            new URL[] {classes.toUri().toURL()},
            MigratingGuideFlywayRunTest.class.getClassLoader());
    return loader.loadClass(type.group(1)).getMethod("migrate", DataSource.class, String.class);
  }

  private static List<String> strings(DataSource ds, String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection c = ds.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  /** A fresh database its owner role owns, and a jobs' role that may only connect to it. */
  private record Setup(DataSource owner, DataSource app, String appRole) {
    static Setup create(EmbeddedDatabase db) {
      OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
      String database = roles.database(db, false);
      return new Setup(
          roles.ownerDataSource(db, database), roles.appDataSource(db, database), roles.app());
    }
  }
}
