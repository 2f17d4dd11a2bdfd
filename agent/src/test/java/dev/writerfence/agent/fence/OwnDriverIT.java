package dev.writerfence.agent.fence;

import static org.assertj.core.api.Assertions.assertThat;

import com.acme.legacy.OwnDriverApp;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.ForkedJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The agent's relocated pgjdbc never reaches the application: an application with its own, older
 * pgjdbc and HikariCP gets its own driver from {@code DriverManager.getDriver}, {@code
 * DriverManager.getConnection} and its pool (configured by {@code jdbcUrl}), whether the agent's
 * fence was built before the application first used JDBC or after; and {@code
 * DriverManager.getDrivers} never lists the agent's copy.
 */
class OwnDriverIT {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();
  private static final String APP_DRIVER = "org.postgresql.Driver postgresql-42.7.13.jar";
  private static final String APP_CONNECTION =
      "org.postgresql.jdbc.PgConnection postgresql-42.7.13.jar";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"fenced-first", "jdbc-first"})
  void theApplicationsDriverManagerAndPoolSeeOnlyTheApplicationsDriver(String order)
      throws Exception {
    Path config =
        LegacyJvm.config(
            dir,
            "datasource.url=" + DB.jdbcUrl(),
            "datasource.username=postgres",
            "fence.methods=" + OwnDriverApp.class.getName() + "#write=" + FenceNames.random("drv"));
    List<String> options = new ArrayList<>(ForkedJvm.DEFAULT_JVM_OPTIONS);
    options.add("-javaagent:" + LegacyJvm.AGENT_JAR + "=config=" + config);
    List<String> output;
    try (ForkedJvm app =
        ForkedJvm.start(
            options, appClassPath(), OwnDriverApp.class.getName(), order, DB.jdbcUrl())) {
      assertThat(app.awaitExit(Duration.ofMinutes(2))).as(app.stderr()).isZero();
      output = app.output();
    }
    assertThat(output).as("the fenced method ran under the agent's fence").contains("wrote");
    int lookUps = order.equals("fenced-first") ? 1 : 2;
    assertThat(lines(output, "driver-manager "))
        .hasSize(lookUps)
        .allSatisfy(l -> assertThat(l).isEqualTo("driver-manager " + APP_DRIVER));
    assertThat(lines(output, "get-connection "))
        .hasSize(lookUps)
        .allSatisfy(l -> assertThat(l).isEqualTo("get-connection " + APP_CONNECTION + " 42.7.13"));
    assertThat(lines(output, "pool "))
        .hasSize(lookUps)
        .allSatisfy(l -> assertThat(l).isEqualTo("pool " + APP_CONNECTION + " 42.7.13"));
    assertThat(lines(output, "drivers "))
        .hasSize(lookUps)
        .allSatisfy(l -> assertThat(l).isEqualTo("drivers org.postgresql.Driver"));
  }

  private static List<String> lines(List<String> output, String prefix) {
    return output.stream().filter(l -> l.startsWith(prefix)).toList();
  }

  /** The application's class path: its classes, its own older pgjdbc and HikariCP 5.1. */
  private static String appClassPath() throws IOException {
    return LegacyJvm.appClassPath("app-driver", "app-pool");
  }
}
