package dev.writerfence.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * HikariCP pools for tests, filled before they are handed out so that no test waits on a connect.
 */
public final class Pools {
  private Pools() {}

  /**
   * @param jdbcUrl where to connect
   * @param user the role
   * @param size the number of connections, all opened before this returns
   * @return the pool; close it when done
   */
  public static HikariDataSource warmPool(String jdbcUrl, String user, int size) {
    HikariConfig config = new HikariConfig();
    config.setPoolName("test-" + size);
    config.setJdbcUrl(jdbcUrl);
    config.setUsername(user);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(size);
    config.setAutoCommit(true);
    HikariDataSource pool = new HikariDataSource(config);
    List<Connection> borrowed = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        borrowed.add(pool.getConnection());
      }
      for (Connection c : borrowed) {
        c.close();
      }
    } catch (SQLException e) {
      pool.close();
      throw new IllegalStateException("cannot fill the pool for " + jdbcUrl, e);
    }
    return pool;
  }
}
