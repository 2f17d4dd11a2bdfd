package com.acme.legacy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.postgresql.PGConnection;

/**
 * An application with its own pgjdbc and HikariCP beside the agent. Arguments: {@code fenced-first}
 * or {@code jdbc-first}, then the JDBC URL. {@link #write} is fenced by the agent's {@code
 * fence.methods}. Each look-up prints one line: {@code driver-manager CLASS SOURCE}, {@code
 * get-connection CLASS SOURCE VERSION}, {@code pool CLASS SOURCE VERSION} and {@code drivers
 * CLASS,...}, where SOURCE is the jar the class came from and VERSION the driver version the
 * connection reports.
 */
public final class OwnDriverApp {
  private OwnDriverApp() {}

  /**
   * @param args order and JDBC URL
   * @throws SQLException when the application's JDBC fails
   */
  public static void main(String[] args) throws SQLException {
    String url = args[1];
    if (args[0].equals("fenced-first")) {
      write();
      lookUp(url);
    } else {
      lookUp(url);
      write();
      lookUp(url);
    }
  }

  /** Fenced by the agent: runs only under a lease. */
  static void write() {
    System.out.println("wrote");
  }

  private static void lookUp(String url) throws SQLException {
    Driver driver = DriverManager.getDriver(url);
    System.out.println("driver-manager " + describe(driver.getClass()));
    try (Connection c = DriverManager.getConnection(url, "postgres", "")) {
      System.out.println(
          "get-connection "
              + describe(c.unwrap(PGConnection.class).getClass())
              + " "
              + c.getMetaData().getDriverVersion());
    }
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(url);
    config.setUsername("postgres");
    config.setMaximumPoolSize(1);
    try (HikariDataSource pool = new HikariDataSource(config);
        Connection c = pool.getConnection()) {
      System.out.println(
          "pool "
              + describe(c.unwrap(PGConnection.class).getClass())
              + " "
              + c.getMetaData().getDriverVersion());
    }
    List<String> drivers = new ArrayList<>();
    for (Driver d : Collections.list(DriverManager.getDrivers())) {
      drivers.add(d.getClass().getName());
    }
    System.out.println("drivers " + String.join(",", drivers));
  }

  private static String describe(Class<?> type) {
    String source =
        type.getProtectionDomain().getCodeSource() == null
            ? "?"
            : type.getProtectionDomain().getCodeSource().getLocation().getPath();
    return type.getName() + " " + source.substring(source.lastIndexOf('/') + 1);
  }
}
