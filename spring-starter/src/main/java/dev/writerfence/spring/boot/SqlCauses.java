package dev.writerfence.spring.boot;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The database's own words in a chain of causes: what a start-up message leads with, before any
 * wrapper's ("Failed to initialize pool", "Error creating bean"). Shared by the start-up contract
 * check and the failure analyzer, so both name a refused connection alike.
 */
final class SqlCauses {
  private SqlCauses() {}

  /**
   * @param failure any exception, or {@code null}
   * @return the first {@link SQLException} in its chain of causes whose SQLState is of class 08
   *     (connection exception: refused, unreachable, closed) or 28 (invalid authorization: wrong
   *     password, no such role, not permitted to log in)
   */
  static Optional<SQLException> refusal(Throwable failure) {
    for (Throwable t : chain(failure)) {
      if (t instanceof SQLException e && isRefusal(e.getSQLState())) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /**
   * @param failure any exception, or {@code null}
   * @return the deepest {@link SQLException} in its chain of causes: the driver's, under a pool's
   */
  static Optional<SQLException> deepest(Throwable failure) {
    SQLException found = null;
    for (Throwable t : chain(failure)) {
      if (t instanceof SQLException e) {
        found = e;
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * @param sqlState a SQLState, or {@code null}
   * @return whether it is of class 08 or 28
   */
  static boolean isRefusal(String sqlState) {
    return sqlState != null && (sqlState.startsWith("08") || sqlState.startsWith("28"));
  }

  /**
   * @param failure any exception, never {@code null}
   * @return the database's reason when the chain holds one, as {@code FATAL: password
   *     authentication failed for user "app" (SQLState 28P01)}; else the failure's own first line
   *     and type
   */
  static String describe(Throwable failure) {
    SQLException e = refusal(failure).or(() -> deepest(failure)).orElse(null);
    if (e == null) {
      return failure.getClass().getSimpleName() + ": " + firstLine(failure.getMessage());
    }
    String state = e.getSQLState();
    return firstLine(e.getMessage()) + (state == null ? "" : " (SQLState " + state + ")");
  }

  /**
   * What to check for a refused connection, by the SQLState's class.
   *
   * @param refusal a SQLException of class 08 or 28
   * @param prefix the fence's connection properties: {@code spring.datasource} or {@code
   *     writer-fence.datasource}
   * @return the properties to check, named in full
   */
  static String whatToCheck(SQLException refusal, String prefix) {
    String state = String.valueOf(refusal.getSQLState());
    if (state.startsWith("28")) {
      return "Check "
          + prefix
          + ".username and "
          + prefix
          + ".password (the role must exist, may log in, and its password must match), and "
          + prefix
          + ".url names the database you mean";
    }
    return "Check "
        + prefix
        + ".url (host, port, database) and that PostgreSQL accepts TCP connections there"
        + " (listen_addresses, pg_hba.conf, a firewall)";
  }

  /**
   * @param failure any exception, or {@code null}
   * @return every throwable of its chain of causes once, outermost first (a cycle ends it)
   */
  static List<Throwable> chain(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> out = new ArrayList<>();
    for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
      out.add(t);
    }
    return out;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "(no message)";
    }
    int nl = message.indexOf('\n');
    return (nl < 0 ? message : message.substring(0, nl)).strip();
  }
}
