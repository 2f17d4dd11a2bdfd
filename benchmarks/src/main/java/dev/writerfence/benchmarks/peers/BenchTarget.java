package dev.writerfence.benchmarks.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * Where the servers under test listen, as the launcher hands it to every benchmark JVM through
 * system properties: {@value #JDBC_URL} (PostgreSQL, as its superuser) and {@value #REDIS_URL}
 * (absent when no redis-server could be started).
 */
public record BenchTarget(String jdbcUrl, String redisUrl) {
  /** System property with the JDBC URL of the PostgreSQL under test. */
  public static final String JDBC_URL = "bench.jdbc.url";

  /** System property with the {@code redis://} address of the redis-server, if one runs. */
  public static final String REDIS_URL = "bench.redis.url";

  /**
   * @return the target named by this JVM's system properties
   * @throws IllegalStateException when {@value #JDBC_URL} is not set (the benchmarks were not
   *     started by the launcher)
   */
  public static BenchTarget fromSystemProperties() {
    String url = System.getProperty(JDBC_URL);
    if (url == null || url.isBlank()) {
      throw new IllegalStateException(
          "-D" + JDBC_URL + " is not set: start the benchmarks with benchmarks/run.sh");
    }
    return new BenchTarget(url, System.getProperty(REDIS_URL));
  }

  /**
   * The connection setup every PostgreSQL backend gets: a HikariCP pool of its own on the same
   * server, autocommit, HikariCP's defaults otherwise.
   *
   * @param name the pool's name, for thread names
   * @param size the most connections at once; at least 1
   * @return the pool; close it when done
   */
  public HikariDataSource pool(String name, int size) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(jdbcUrl);
    config.setUsername("postgres");
    config.setPoolName(name);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    return new HikariDataSource(config);
  }
}
