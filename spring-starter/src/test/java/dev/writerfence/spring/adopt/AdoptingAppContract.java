package dev.writerfence.spring.adopt;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.JsonPath;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.EmbeddedDatabase;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What a new user sees on one Spring Boot line, from the application's own migrations to shutdown:
 * the starter's auto-configuration, its Flyway run beside the application's, the advice, the
 * meters, the endpoint and the health contributor over HTTP, and the release of held leases when
 * the context closes. Written against API that Spring Boot 3.5 and 4.0 share; each line's module
 * runs it in a subclass on that line's dependency set.
 */
public abstract class AdoptingAppContract {
  private final HttpClient http = HttpClient.newHttpClient();

  /**
   * @return the Spring Boot line the subclass runs on, e.g. {@code 3.5}
   */
  protected abstract String springBootLine();

  @Test
  void C38_theApplicationsOwnFlywayMigrationAndTheContractsAreBothAppliedAndHealthShowsTheFence()
      throws Exception {
    assertThat(SpringBootVersion.getVersion()).startsWith(springBootLine() + ".");
    EmbeddedDatabase db = EmbeddedDatabase.get();
    String database = "wf_adopt_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    db.execute("CREATE DATABASE " + database + " ENCODING 'UTF8' TEMPLATE template0");
    try (ConfigurableApplicationContext app = start(db.jdbcUrl(database))) {
      int port = app.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
      WriterFence fence = app.getBean(WriterFence.class);

      // Before any fenced call: the meters exist already.
      assertThat(get(port, "/actuator/metrics/writer.fence.acquire").statusCode()).isEqualTo(200);
      HttpResponse<String> waiters =
          get(port, "/actuator/metrics/writer.fence.queue.waiters?tag=fence:items");
      assertThat(waiters.statusCode()).as(waiters.body()).isEqualTo(200);
      assertThat(JsonPath.<List<Double>>read(waiters.body(), "$.measurements[*].value"))
          .containsExactly(0.0);

      String health = get(port, "/actuator/health").body();
      assertThat((String) JsonPath.read(health, "$.components.writerFence.status")).isEqualTo("UP");
      assertThat((Integer) JsonPath.read(health, "$.components.writerFence.details.version"))
          .isEqualTo(FenceSchema.VERSION);

      // The application's V1 ran in its own history, the contract's V1 in the contract's.
      DataSource appDb = db.dataSource(database, "postgres", null);
      assertThat(history(appDb, "public.flyway_schema_history")).containsExactly("1:app");
      assertThat(history(appDb, "writer_fence.writer_fence_flyway_history"))
          .contains("1:writer fence");

      MigratingApp.Items items = app.getBean(MigratingApp.Items.class);
      long token = items.add("first");
      assertThat(token).isPositive();
      assertThat(items.add("second")).isGreaterThan(token);

      HttpResponse<String> row = get(port, "/actuator/writerfence/items");
      assertThat(row.statusCode()).isEqualTo(200);
      assertThat(row.body()).contains("\"items\"").doesNotContain("holder_token");

      // Held at context close: released by the starter's shutdown, before the DataSource closes.
      assertThat(fence.tryAcquire(FenceRequest.builder("held-at-close").build())).isPresent();
    }
    assertThat(
            queryStrings(
                db.dataSource(database, "postgres", null),
                "SELECT (holder_token IS NULL)::text FROM writer_fence.lease"
                    + " WHERE fence_name = 'held-at-close'"))
        .as("released when the context closed")
        .containsExactly("true");
  }

  private static ConfigurableApplicationContext start(String jdbcUrl) {
    return new SpringApplicationBuilder(MigratingApp.class)
        .properties(
            "server.port=0",
            "server.address=127.0.0.1",
            "spring.main.banner-mode=off",
            // The application migrates with Flyway (Liquibase is on some test class paths too).
            "spring.liquibase.enabled=false",
            "spring.datasource.url=" + jdbcUrl,
            "spring.datasource.username=postgres",
            "management.endpoints.web.exposure.include=health,writerfence,metrics",
            "management.endpoint.health.show-details=always",
            "writer-fence.holder=adopting-app",
            "logging.level.root=WARN",
            "logging.level.dev.writerfence=INFO")
        .run();
  }

  /** The successful migrations of a Flyway history table, as {@code version:description}. */
  private static List<String> history(DataSource db, String table) throws SQLException {
    return queryStrings(
        db,
        "SELECT version || ':' || description FROM "
            + table
            + " WHERE success AND version IS NOT NULL ORDER BY installed_rank");
  }

  private static List<String> queryStrings(DataSource db, String sql) throws SQLException {
    List<String> values = new ArrayList<>();
    try (Connection c = db.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        values.add(rs.getString(1));
      }
    }
    return values;
  }

  private HttpResponse<String> get(int port, String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
