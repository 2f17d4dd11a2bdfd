package dev.writerfence.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import java.sql.Connection;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The pool {@link WriterFenceSettings#dataSource()} builds from {@code datasource.*}: sized by
 * {@code datasource.pool-size}, and when every connection is in use a call waits at most the query
 * timeout for one, then is unavailable without running: never a hang, never fenced code run without
 * a lease.
 */
class OwnPoolTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  @Test
  void thePoolHasTheConfiguredSizeAndTenWhenUnset() throws Exception {
    try (HikariDataSource unset = (HikariDataSource) settings().dataSource();
        HikariDataSource six = (HikariDataSource) settings("datasource.pool-size=6").dataSource()) {
      assertThat(unset.getMaximumPoolSize())
          .isEqualTo(WriterFenceSettings.DEFAULT_POOL_SIZE)
          .isEqualTo(10);
      assertThat(six.getMaximumPoolSize()).isEqualTo(6);
    }
  }

  @Test
  void anExhaustedPoolMakesTheCallUnavailableWithinTheQueryTimeoutAndTheCodeDoesNotRun()
      throws Exception {
    WriterFenceSettings settings = settings("datasource.pool-size=1", "query-timeout=1s");
    DataSource pool = settings.dataSource();
    AtomicInteger ran = new AtomicInteger();
    String name = FenceNames.random("exhausted");
    try (WriterFence fence = settings.buildFence(pool)) {
      Throwable outcome;
      try (Connection taken = pool.getConnection()) { // the pool's only connection
        assertThat(taken.isValid(1)).isTrue();
        outcome =
            assertTimeoutPreemptively(
                Duration.ofSeconds(30),
                () -> catchThrowable(() -> fence.run(FenceRequest.of(name), ran::incrementAndGet)),
                "a call on an exhausted pool hung instead of failing closed");
      }
      assertThat(outcome)
          .isInstanceOf(WriterFenceUnavailableException.class)
          .hasMessageContaining("no connection of the fence's data source came free in time")
          .hasMessageContaining("datasource.pool-size");
      assertThat(ran).hasValue(0);

      // The connection is back: the next call gets it, and the lease.
      fence.run(FenceRequest.of(name), ran::incrementAndGet);
      assertThat(ran).hasValue(1);
    } finally {
      ((AutoCloseable) pool).close();
    }
  }

  private static WriterFenceSettings settings(String... lines) {
    Properties p = new Properties();
    p.setProperty(WriterFenceSettings.PREFIX + "datasource.url", DB.jdbcUrl());
    p.setProperty(WriterFenceSettings.PREFIX + "datasource.username", "postgres");
    for (String line : lines) {
      int eq = line.indexOf('=');
      p.setProperty(WriterFenceSettings.PREFIX + line.substring(0, eq), line.substring(eq + 1));
    }
    return WriterFenceSettings.fromProperties(p);
  }
}
