package dev.writerfence.agent.fence;

import dev.writerfence.agent.AgentLog;
import java.sql.SQLException;

/**
 * Keeps the agent's relocated pgjdbc out of the application's {@code DriverManager}. pgjdbc's
 * {@code Driver} registers itself when its class initialises; registered, the agent's copy would
 * answer the application's {@code DriverManager.getConnection} and {@code getDriver} for any {@code
 * jdbc:postgresql:} URL, and through them the application's own pools, whenever the agent's fence
 * is built before the application first asks. The fence connects through a driver instance of its
 * own, never through {@code DriverManager}, so it loses nothing.
 */
final class OwnDriver {
  private OwnDriver() {}

  /**
   * Initialises the agent's driver class (which registers it) and deregisters it at once, before
   * the fence's pool opens a connection. Between the two an application thread could still find it:
   * the window is one method call on the thread that builds the fence, once per JVM.
   */
  static void deregister() {
    try {
      if (org.postgresql.Driver.isRegistered()) {
        org.postgresql.Driver.deregister();
      }
    } catch (SQLException | SecurityException e) {
      // The fence still works (it never asks DriverManager); only the application's driver
      // look-ups may find the agent's copy.
      AgentLog.info("could not deregister the agent's PostgreSQL driver from DriverManager: " + e);
    }
  }
}
