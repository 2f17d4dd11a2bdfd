package dev.writerfence.config;

import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/** Data sources for the fence's own connections, when the application gives none. */
final class DataSources {
  private static final boolean HIKARI =
      isPresent("com.zaxxer.hikari.HikariDataSource", DataSources.class.getClassLoader());

  private DataSources() {}

  static DataSource create(String url, String username, String password) {
    if (HIKARI) {
      return Hikari.create(url, username, password);
    }
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(url);
    if (username != null) {
      ds.setUser(username);
    }
    if (password != null) {
      ds.setPassword(password);
    }
    return ds;
  }

  private static boolean isPresent(String className, ClassLoader loader) {
    try {
      Class.forName(className, false, loader);
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Kept in its own class so HikariCP is loaded only when it is on the class path. */
  private static final class Hikari {
    static DataSource create(String url, String username, String password) {
      com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
      config.setPoolName("writer-fence");
      config.setJdbcUrl(url);
      config.setUsername(username);
      config.setPassword(password);
      config.setMaximumPoolSize(4);
      config.setMinimumIdle(1);
      config.setAutoCommit(true);
      return new com.zaxxer.hikari.HikariDataSource(config);
    }
  }
}
