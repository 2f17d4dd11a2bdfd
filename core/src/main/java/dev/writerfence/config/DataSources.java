package dev.writerfence.config;

import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Data sources for the fence's own connections, when the application gives none. Every wait on the
 * database is bounded by the query timeout, so a server that accepts TCP and never answers makes
 * the fence unavailable within about that time instead of hanging (pgjdbc's defaults wait forever
 * for a login or a read).
 */
final class DataSources {
  private static final boolean HIKARI =
      isPresent("com.zaxxer.hikari.HikariDataSource", DataSources.class.getClassLoader());

  /** How much longer than a statement may take a socket read may block: time for the cancel. */
  static final int SOCKET_TIMEOUT_MARGIN_SECONDS = 5;

  private DataSources() {}

  /**
   * @param poolSize connections the pool opens at most, from 1 to {@link
   *     WriterFenceSettings#MAX_POOL_SIZE}
   * @param queryTimeout the fence's query timeout; at least 1 s, rounded up to whole seconds: a
   *     borrow waits at most this long for a free connection
   * @return a HikariCP pool of {@code poolSize} connections when HikariCP is on the class path (the
   *     agent carries its own), otherwise pgjdbc's unpooled data source
   */
  static DataSource create(
      String url, String username, String password, int poolSize, Duration queryTimeout) {
    if (HIKARI) {
      return Hikari.create(url, username, password, poolSize, queryTimeout);
    }
    return unpooled(url, username, password, queryTimeout);
  }

  /**
   * pgjdbc's unpooled data source with connect, login and socket timeouts, connecting through a
   * driver instance of its own rather than {@code DriverManager}.
   */
  static PGSimpleDataSource unpooled(
      String url, String username, String password, Duration queryTimeout) {
    int seconds = PgLeaseStore.queryTimeoutSeconds(queryTimeout);
    PGSimpleDataSource ds = new OwnDriverDataSource();
    ds.setURL(url);
    if (username != null) {
      ds.setUser(username);
    }
    if (password != null) {
      ds.setPassword(password);
    }
    ds.setConnectTimeout(seconds); // the TCP connect
    ds.setLoginTimeout(seconds); // connect, TLS and authentication together
    ds.setSocketTimeout(socketTimeoutSeconds(seconds)); // any one read, after the statement timeout
    return ds;
  }

  /**
   * A socket read may wait a little longer than a statement, so that the statement timeout (and its
   * cancel request) answers first and the read timeout only catches a server that went silent.
   */
  static int socketTimeoutSeconds(int queryTimeoutSeconds) {
    return (int)
        Math.min(Integer.MAX_VALUE, (long) queryTimeoutSeconds + SOCKET_TIMEOUT_MARGIN_SECONDS);
  }

  /**
   * pgjdbc's data source asks {@code DriverManager}, which answers with the first registered driver
   * that accepts the URL, whoever registered it. The fence connects through its own instance of the
   * pgjdbc it was built with: the agent's relocated copy deregisters its driver from {@code
   * DriverManager} (the application's {@code DriverManager} and pools must see only the
   * application's driver) and still connects, and an application's older driver never serves the
   * fence.
   */
  private static final class OwnDriverDataSource extends PGSimpleDataSource {
    private static final long serialVersionUID = 1L;
    private static final Driver DRIVER = new org.postgresql.Driver();

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      Properties info = new Properties();
      if (user != null) {
        info.setProperty("user", user);
      }
      if (password != null) {
        info.setProperty("password", password);
      }
      Connection connection = DRIVER.connect(getUrl(), info);
      if (connection == null) {
        // connect answers null, not an exception, for a URL that is not pgjdbc's.
        throw new SQLException(
            "pgjdbc does not accept the URL " + getURL() + "; expected jdbc:postgresql://...");
      }
      return connection;
    }
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
    static DataSource create(
        String url, String username, String password, int poolSize, Duration queryTimeout) {
      int seconds = PgLeaseStore.queryTimeoutSeconds(queryTimeout);
      long millis = seconds * 1000L;
      com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
      config.setPoolName("writer-fence");
      // Connections come from pgjdbc's data source, with the driver's own connect, login and read
      // bounds, never from DriverManager: the agent deregisters its relocated driver (an
      // application's DriverManager and pools must not find it), and an application's driver must
      // not serve the agent's pool.
      config.setDataSource(unpooled(url, username, password, queryTimeout));
      config.setMaximumPoolSize(poolSize);
      config.setMinimumIdle(1);
      config.setAutoCommit(true);
      // A borrow waits at most the query timeout for a connection, a liveness check half of it:
      // an exhausted pool makes the call unavailable (it never runs), never a hang.
      config.setConnectionTimeout(millis);
      config.setValidationTimeout(Math.max(250, millis / 2));
      // Start even when the database is down: each fenced call then fails closed on its own.
      config.setInitializationFailTimeout(-1);
      return new com.zaxxer.hikari.HikariDataSource(config);
    }
  }
}
