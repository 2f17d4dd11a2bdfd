package dev.writerfence.store.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The JDBC frame every statement of core's stores runs in, written once: a connection of the
 * store's own in autocommit (or a connection the caller holds, such as an advisory lock's pinned
 * one), a prepared statement with the store's query timeout, its parameters bound, one query run
 * and its result read; and, for the statements of a fence, the {@link SQLException} sorted by
 * {@link SqlErrors} into transient, bad value or unavailable.
 *
 * <p>A store builds one and keeps it; it is immutable and thread-safe (each call uses a connection
 * of its own or the caller's).
 */
public final class Statements {
  /** What {@link #text(String)} gives for {@code null}: bound by {@code setString(i, null)}. */
  private static final Object NULL_TEXT =
      new Object() {
        @Override
        public String toString() {
          return "NULL::text";
        }
      };

  private final DataSource dataSource;
  private final String schema;
  private final int queryTimeoutSeconds;

  /**
   * Reads the answer of a query.
   *
   * @param <T> what is read
   */
  @FunctionalInterface
  public interface Answer<T> {
    /**
     * @param rs the query's result, before its first row; closed after this returns
     * @return what the caller wants of it
     * @throws SQLException when the result cannot be read
     */
    T read(ResultSet rs) throws SQLException;
  }

  /**
   * @param dataSource where a statement that needs no particular connection gets one; never {@code
   *     null}
   * @param schema what {@link SqlErrors#classify} names when the contract's schema is missing or
   *     not granted; never {@code null}
   * @param queryTimeoutSeconds JDBC's {@code Statement.setQueryTimeout} for every statement, in
   *     whole seconds, at least 1
   * @throws IllegalArgumentException naming the timeout when it is under 1 second
   */
  public Statements(DataSource dataSource, String schema, int queryTimeoutSeconds) {
    if (queryTimeoutSeconds < 1) {
      throw new IllegalArgumentException(
          "writer-fence: query timeout "
              + queryTimeoutSeconds
              + " s is not allowed: at least 1 second");
    }
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.schema = Objects.requireNonNull(schema, "schema");
    this.queryTimeoutSeconds = queryTimeoutSeconds;
  }

  /**
   * A text parameter that may be {@code null}, bound as {@code setString} binds it: a {@code null}
   * goes to the server as text ({@code varchar}, or of unspecified type with pgjdbc's {@code
   * stringtype=unspecified}), as a non-null {@link String} does, not as a value of unknown type.
   *
   * @param value the text, may be {@code null}
   * @return {@code value} itself when not {@code null}; otherwise a marker only this class binds
   */
  public static Object text(String value) {
    return value == null ? NULL_TEXT : value;
  }

  /**
   * @return the query timeout of every statement, in whole seconds
   */
  public int queryTimeoutSeconds() {
    return queryTimeoutSeconds;
  }

  /**
   * Runs one query of a fence on a connection of its own, in autocommit, and sorts a failure.
   *
   * @param <T> what is read
   * @param fenceName the fence the statement is for, named in a failure's message ({@code *} for
   *     every fence)
   * @param sql the statement, with {@code ?} parameters
   * @param answer reads the result
   * @param values the parameters in order, bound as the class description says
   * @return what {@code answer} read
   * @throws RuntimeException {@link SqlErrors#classify}'s exception for a database error: {@code
   *     TransientLeaseStoreException}, {@code IllegalArgumentException} or {@code
   *     WriterFenceUnavailableException}, the {@link SQLException} as its cause
   */
  public <T> T call(String fenceName, String sql, Answer<T> answer, Object... values) {
    try {
      return query(sql, answer, values);
    } catch (SQLException e) {
      throw SqlErrors.classify(fenceName, schema, e);
    }
  }

  /**
   * Runs one query on a connection of its own, in autocommit: what it changes is committed, and
   * visible to every other session, before this returns. A connection handed out with autocommit
   * off is given back with it off again.
   *
   * @param <T> what is read
   * @param sql the statement, with {@code ?} parameters
   * @param answer reads the result
   * @param values the parameters in order, bound as the class description says
   * @return what {@code answer} read
   * @throws SQLException as the driver raised it, unsorted
   */
  public <T> T query(String sql, Answer<T> answer, Object... values) throws SQLException {
    try (Connection connection = dataSource.getConnection()) {
      // Autocommit is switched here, not by a helper closed after the answer: nothing of this
      // class runs once the caller's answer has read the result.
      boolean turnedOn = !connection.getAutoCommit();
      if (turnedOn) {
        connection.setAutoCommit(true);
      }
      T result;
      try {
        result = query(connection, sql, answer, values);
      } catch (Throwable e) {
        if (turnedOn) {
          // A failure to turn it back must not hide the statement's own failure.
          try {
            connection.setAutoCommit(false);
          } catch (SQLException restore) {
            e.addSuppressed(restore);
          }
        }
        throw e;
      }
      if (turnedOn) {
        connection.setAutoCommit(false);
      }
      return result;
    }
  }

  /**
   * Runs one query on a connection the caller holds, as it is (its autocommit is not touched).
   *
   * @param <T> what is read
   * @param connection the connection, for example one pinned to a hold
   * @param sql the statement, with {@code ?} parameters
   * @param answer reads the result
   * @param values the parameters in order, bound as the class description says
   * @return what {@code answer} read
   * @throws SQLException as the driver raised it, unsorted
   */
  public <T> T query(Connection connection, String sql, Answer<T> answer, Object... values)
      throws SQLException {
    try (PreparedStatement ps = prepare(connection, sql)) {
      for (int i = 0; i < values.length; i++) {
        if (values[i] == NULL_TEXT) {
          ps.setString(i + 1, null);
        } else {
          ps.setObject(i + 1, values[i]);
        }
      }
      try (ResultSet rs = ps.executeQuery()) {
        return answer.read(rs);
      }
    }
  }

  /**
   * Prepares a statement with the query timeout set, for a caller that must act between binding and
   * running it; the caller closes it.
   *
   * @param connection the connection
   * @param sql the statement, with {@code ?} parameters
   * @return the prepared statement
   * @throws SQLException as the driver raised it
   */
  public PreparedStatement prepare(Connection connection, String sql) throws SQLException {
    PreparedStatement ps = connection.prepareStatement(sql);
    try {
      ps.setQueryTimeout(queryTimeoutSeconds);
      return ps;
    } catch (SQLException | RuntimeException e) {
      ps.close();
      throw e;
    }
  }
}
