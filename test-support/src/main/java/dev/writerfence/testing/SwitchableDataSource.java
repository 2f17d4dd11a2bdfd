package dev.writerfence.testing;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A data source whose database can be made to vanish: after {@link #cutOff()} every new connection
 * goes to a port on 127.0.0.1 where nothing listens, so the driver fails for real (connection
 * refused, SQLState 08001) until {@link #restore()}. Thread-safe.
 */
public final class SwitchableDataSource implements DataSource {
  private final DataSource real;
  private final DataSource unreachable;
  private volatile boolean cutOff;

  /**
   * @param real the working data source
   */
  public SwitchableDataSource(DataSource real) {
    this.real = real;
    PGSimpleDataSource nowhere = new PGSimpleDataSource();
    nowhere.setURL("jdbc:postgresql://127.0.0.1:" + closedPort() + "/postgres");
    nowhere.setUser("postgres");
    nowhere.setConnectTimeout(2);
    this.unreachable = nowhere;
  }

  /** From now on, connections fail as if the database were gone. */
  public void cutOff() {
    cutOff = true;
  }

  /** From now on, connections reach the database again. */
  public void restore() {
    cutOff = false;
  }

  private DataSource current() {
    return cutOff ? unreachable : real;
  }

  @Override
  public Connection getConnection() throws SQLException {
    return current().getConnection();
  }

  @Override
  public Connection getConnection(String username, String password) throws SQLException {
    return current().getConnection(username, password);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return real.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    real.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    real.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return real.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return real.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> type) throws SQLException {
    return real.unwrap(type);
  }

  @Override
  public boolean isWrapperFor(Class<?> type) throws SQLException {
    return real.isWrapperFor(type);
  }

  /** A port that was free a moment ago and is closed now. */
  private static int closedPort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
