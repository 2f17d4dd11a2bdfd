package dev.writerfence.store.jdbc;

import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.spi.TransientLeaseStoreException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Sorts a database error into what the fence does with it. SQLStates are PostgreSQL's (Appendix A,
 * "PostgreSQL Error Codes"): 40001, 40P01 and 55P03 are transient (retried); 22023 (the contract's
 * input rules), 22021 and 22P05 (a character the database cannot store) are a bad value, {@link
 * IllegalArgumentException}; everything else means the database cannot confirm a lease. Shared by
 * both backends (the lease row and the advisory lock).
 *
 * <p>When no session could be had, the message leads with the database's own words, since they are
 * the fix: a refusal (a wrong password, an unknown role or database, no {@code pg_hba.conf} entry,
 * too many connections, a server starting up) reads {@code writer-fence: PostgreSQL refused the
 * connection: password authentication failed for user "app" (SQLState 28P01); the lease cannot be
 * confirmed}, and a connection that failed (class 08) {@code writer-fence: the database cannot be
 * reached: ...}.
 */
public final class SqlErrors {
  /** serialization_failure, deadlock_detected, lock_not_available: try again. */
  private static final Set<String> TRANSIENT = Set.of("40001", "40P01", "55P03");

  /**
   * character_not_in_repertoire (an invalid byte sequence, such as U+0000) and
   * untranslatable_character (no equivalent in the database's encoding): the value is bad, the
   * database is fine.
   */
  private static final Set<String> UNREPRESENTABLE = Set.of("22021", "22P05");

  /**
   * The server answered the connection attempt with a refusal: class 28 (invalid_authorization_
   * specification 28000: an unknown role, no pg_hba.conf entry; invalid_password 28P01), class 3D
   * (invalid_catalog_name: the database does not exist), 08004 (the server rejected the
   * connection), 53300 (too_many_connections) and 57P03 (cannot_connect_now: starting up, shutting
   * down, in recovery). Matched by prefix, so the class codes 28 and 3D take every code of theirs.
   */
  private static final List<String> REFUSED = List.of("28", "3D", "08004", "53300", "57P03");

  /** The severity pgjdbc puts before a server's message: not part of what the server said. */
  private static final Pattern SEVERITY = Pattern.compile("^(FATAL|ERROR|PANIC):\\s+");

  private SqlErrors() {}

  /**
   * @param fenceName the fence the failed call was for, named in the message
   * @param schema the contract's schema, named when it is missing or not granted
   * @param e the database's error; never {@code null}
   * @return the exception to throw for {@code e}: {@code TransientLeaseStoreException}, {@code
   *     IllegalArgumentException} or {@code WriterFenceUnavailableException}; never {@code null}
   */
  public static RuntimeException classify(String fenceName, String schema, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (TRANSIENT.contains(state)) {
      return new TransientLeaseStoreException(e);
    }
    if ("22023".equals(state)) {
      return new IllegalArgumentException(serverMessage(e), e);
    }
    if (UNREPRESENTABLE.contains(state)) {
      return new IllegalArgumentException(
          "writer-fence: fence '"
              + fenceName
              + "': the fence name or holder label is not allowed: the database cannot store one of"
              + " its characters (SQLState "
              + state
              + "): "
              + firstLine(e.getMessage()),
          e);
    }
    return new WriterFenceUnavailableException(fenceName, unavailableMessage(schema, state, e), e);
  }

  private static String unavailableMessage(String schema, String state, SQLException e) {
    String prefix = "writer-fence: cannot confirm a lease";
    if (isPoolerStatementClash(state, e)) {
      return prefix
          + ": a prepared statement was lost or duplicated (SQLState "
          + state
          + "): the connection goes through a pooler in transaction mode (PgBouncer before"
          + " 1.21); add prepareThreshold=0 to the JDBC URL";
    }
    if (state.isEmpty() && e instanceof SQLTransientConnectionException) {
      // What a pool throws when no connection came free within its borrow timeout (HikariCP's
      // connectionTimeout, the fence's query timeout when the fence built the pool); the
      // database itself has said nothing.
      return prefix
          + ": no connection of the fence's data source came free in time (all in use; raise"
          + " datasource.pool-size for the fence's own pool): "
          + e.getMessage();
    }
    if (REFUSED.stream().anyMatch(state::startsWith)) {
      return "writer-fence: PostgreSQL refused the connection: " + leadingCause(state, e);
    }
    if (state.startsWith("08")
        || e instanceof SQLTransientConnectionException
        || e instanceof SQLNonTransientConnectionException) {
      return "writer-fence: the database cannot be reached: " + leadingCause(state, e);
    }
    return switch (state) {
      case "25006" -> prefix + ": the database is read-only (SQLState 25006)";
      case "57014" ->
          prefix + ": the database did not answer in time (SQLState 57014, statement canceled)";
      case "3F000", "42883", "42P01" ->
          prefix
              + ": the writer-fence schema '"
              + schema
              + "' is not installed or is out of date (SQLState "
              + state
              + "); install it with FenceSchema.install(...) or"
              + " './writer-fence schema install --jdbc-url URL'";
      case "42501" ->
          prefix
              + ": permission denied (SQLState 42501); grant the role EXECUTE on the functions of"
              + " schema '"
              + schema
              + "' (FenceSchema grantTo, or '--grant-to ROLE')";
      default -> prefix + " (SQLState " + state + "): " + e.getMessage();
    };
  }

  /**
   * Server-side prepared statements that meet the wrong server session: 42P05 ({@code prepared
   * statement "S_1" already exists}), 26000 (it does not exist), or 08P01 when a Bind names a
   * statement prepared with other parameters ({@code bind message supplies 3 parameters, but
   * prepared statement "S_1" requires 2}). All three are seen through PgBouncer in transaction mode
   * with pgjdbc's default prepareThreshold.
   */
  private static boolean isPoolerStatementClash(String state, SQLException e) {
    if ("42P05".equals(state) || "26000".equals(state)) {
      return true;
    }
    String message = e.getMessage();
    return "08P01".equals(state) && message != null && message.contains("prepared statement");
  }

  /**
   * The database's words first, then the SQLState and what follows: {@code password authentication
   * failed for user "app" (SQLState 28P01); the lease cannot be confirmed}. The words are those of
   * the innermost error in the chain with the same SQLState, so a pool's wrapper ({@code
   * HikariPool-1 - Connection is not available}, which copies the SQLState of the failure beneath
   * it) does not hide them.
   */
  private static String leadingCause(String state, SQLException e) {
    String words = e.getMessage();
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof SQLException inner && state.equals(inner.getSQLState())) {
        words = inner.getMessage();
      }
    }
    String said = SEVERITY.matcher(firstLine(words).strip()).replaceFirst("");
    return said
        + (state.isEmpty() ? "" : " (SQLState " + state + ")")
        + "; the lease cannot be confirmed";
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl >= 0 ? message.substring(0, nl) : message;
  }

  private static String serverMessage(SQLException e) {
    String m = e.getMessage();
    int at = m == null ? -1 : m.indexOf("writer-fence:");
    String text = at >= 0 ? m.substring(at) : m;
    int nl = text == null ? -1 : text.indexOf('\n');
    return nl >= 0 ? text.substring(0, nl) : text;
  }
}
