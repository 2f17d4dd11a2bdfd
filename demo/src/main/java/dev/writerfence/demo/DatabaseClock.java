package dev.writerfence.demo;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Reads {@code clock_timestamp()}: the one clock every writer process shares. */
final class DatabaseClock {
  private static final String NOW_MICROS =
      "SELECT (extract(epoch FROM clock_timestamp()) * 1000000)::bigint";

  private final DataSource dataSource;

  DatabaseClock(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * @return the database's clock now, microseconds since the epoch
   * @throws IllegalStateException when the database cannot be read
   */
  long nowMicros() {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(NOW_MICROS)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new IllegalStateException("could not read the database clock", e);
    }
  }
}
