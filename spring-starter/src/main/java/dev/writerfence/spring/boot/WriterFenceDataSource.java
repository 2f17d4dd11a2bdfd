package dev.writerfence.spring.boot;

import java.util.Objects;
import javax.sql.DataSource;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.util.ClassUtils;

/**
 * The DataSource the fence takes its connections from: a pool of its own ({@code
 * writer-fence.datasource.*}) or the application's DataSource, stripped of any {@link
 * TransactionAwareDataSourceProxy} so that acquire and release never run on the connection of a
 * running {@code @Transactional} (where a rollback would undo the lease, and the lease would stay
 * invisible to other writers until the commit).
 *
 * <p>Not a {@link DataSource} bean itself, so it never stands in for the application's DataSource.
 */
public final class WriterFenceDataSource implements DisposableBean {
  private static final boolean HIKARI =
      ClassUtils.isPresent(
          "com.zaxxer.hikari.HikariDataSource", WriterFenceDataSource.class.getClassLoader());

  private final DataSource dataSource;
  private final boolean dedicated;

  private WriterFenceDataSource(DataSource dataSource, boolean dedicated) {
    this.dataSource = dataSource;
    this.dedicated = dedicated;
  }

  /**
   * @param applicationDataSource the application's DataSource
   * @return the fence's view of it: the same pool, without transaction-bound connections
   */
  public static WriterFenceDataSource shared(DataSource applicationDataSource) {
    return new WriterFenceDataSource(unwrap(applicationDataSource), false);
  }

  /**
   * A pool of the fence's own (HikariCP) of {@code writer-fence.datasource.pool-size} connections,
   * every wait bounded by the query timeout, as the core builds it from {@code
   * writer-fence.datasource.*}. With {@code backend=advisory} the pool is grown, when smaller, to
   * one connection more than {@code writer-fence.advisory.pool-size} (the store's pinned
   * connections and attempts, plus one for the health check).
   *
   * @param properties the bound settings, with {@code datasource.url} set
   * @return the pool; closed with the application context
   */
  public static WriterFenceDataSource dedicated(WriterFenceProperties properties) {
    DataSource pool = properties.dataSource();
    if (properties.isAdvisory() && HIKARI) {
      Hikari.growTo(pool, properties.getAdvisory().getPoolSize() + 1);
    }
    return new WriterFenceDataSource(pool, true);
  }

  /**
   * @param dataSource a DataSource, perhaps a {@link TransactionAwareDataSourceProxy}
   * @return the DataSource behind any transaction-aware proxies
   */
  public static DataSource unwrap(DataSource dataSource) {
    DataSource ds = Objects.requireNonNull(dataSource, "dataSource");
    while (ds instanceof TransactionAwareDataSourceProxy proxy
        && proxy.getTargetDataSource() != null) {
      ds = proxy.getTargetDataSource();
    }
    return ds;
  }

  /**
   * @return where the fence's connections come from
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * @return {@code true} for a pool of the fence's own ({@code writer-fence.datasource.url})
   */
  public boolean isDedicated() {
    return dedicated;
  }

  /** Closes a pool of the fence's own; the application's DataSource is left to the application. */
  @Override
  public void destroy() throws Exception {
    if (dedicated && dataSource instanceof AutoCloseable closeable) {
      closeable.close();
    }
  }

  /** Kept in its own class so HikariCP is loaded only when it is on the class path. */
  private static final class Hikari {
    static void growTo(DataSource dataSource, int connections) {
      if (dataSource instanceof com.zaxxer.hikari.HikariDataSource pool
          && pool.getHikariConfigMXBean().getMaximumPoolSize() < connections) {
        pool.getHikariConfigMXBean().setMaximumPoolSize(connections);
      }
    }
  }
}
