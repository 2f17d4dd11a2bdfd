package dev.writerfence.spring;

import dev.writerfence.spring.app.FencedApp;
import dev.writerfence.testing.EmbeddedDatabase;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shared application context of the @SpringBootTest tests: {@link FencedApp} on the embedded
 * PostgreSQL (schema installed by {@link EmbeddedDatabase}), a web server on 127.0.0.1 with the
 * actuator, Resilience4j's Spring Boot support with a {@code writer-fence} retry (busy retry) and a
 * {@code c20} retry (the @Retry of case C20).
 */
@SpringBootTest(
    classes = FencedApp.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = {
      "server.address=127.0.0.1",
      "spring.flyway.enabled=false",
      "spring.liquibase.enabled=false",
      "management.endpoints.web.exposure.include=health,writerfence,metrics",
      "management.endpoint.health.show-details=always",
      "writer-fence.holder=fenced-app",
      "writer-fence.ttl=30s",
      "writer-fence.query-timeout=3s",
      "resilience4j.retry.instances.writer-fence.max-attempts=2",
      "resilience4j.retry.instances.writer-fence.wait-duration=50ms",
      "resilience4j.retry.instances.c20.max-attempts=60",
      "resilience4j.retry.instances.c20.wait-duration=150ms",
      "resilience4j.retry.instances.c20.retry-exceptions=dev.writerfence.WriterFenceBusyException",
      "logging.level.root=WARN",
      "logging.level.dev.writerfence=INFO"
    })
abstract class FencedAppTestBase {

  @DynamicPropertySource
  static void database(DynamicPropertyRegistry registry) {
    EmbeddedDatabase db = EmbeddedDatabase.get();
    db.execute(
        "CREATE TABLE IF NOT EXISTS c20_record (id bigserial PRIMARY KEY, fence_name text NOT NULL,"
            + " payload text NOT NULL, fencing_token bigint NOT NULL)");
    registry.add("spring.datasource.url", db::jdbcUrl);
    registry.add("spring.datasource.username", () -> "postgres");
    registry.add("spring.datasource.hikari.maximum-pool-size", () -> "6");
  }
}
