package dev.writerfence.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.testing.EmbeddedDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The frame of every store statement: parameters given as values reach the server with the types
 * the typed setters give them, and a statement on a connection handed out with autocommit off is
 * committed and the connection given back with autocommit off.
 */
class StatementsTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  /** Each parameter's type as the server resolved it, in order. */
  private static final String TYPES_SQL =
      "SELECT pg_typeof(?)::text, pg_typeof(?)::text, pg_typeof(?)::text, pg_typeof(?)::text,"
          + " pg_typeof(?)::text, pg_typeof(?)::text, (? IS NULL)";

  @Test
  void valuesReachTheServerAsTheTypedSettersSendThem() throws SQLException {
    UUID token = UUID.randomUUID();
    Statements statements = new Statements(DB.dataSource(), "writer_fence", 5);
    List<String> bound =
        statements.call(
            "types",
            TYPES_SQL,
            StatementsTest::columns,
            "name",
            42,
            7L,
            token,
            true,
            Statements.text(null),
            Statements.text(null));

    List<String> typed;
    try (Connection c = DB.dataSource().getConnection();
        PreparedStatement ps = c.prepareStatement(TYPES_SQL)) {
      ps.setString(1, "name");
      ps.setInt(2, 42);
      ps.setLong(3, 7L);
      ps.setObject(4, token);
      ps.setBoolean(5, true);
      ps.setString(6, null);
      ps.setString(7, null);
      try (ResultSet rs = ps.executeQuery()) {
        typed = columns(rs);
      }
    }
    assertThat(bound)
        .isEqualTo(typed)
        .containsExactly(
            "character varying", "integer", "bigint", "uuid", "boolean", "character varying", "t");
  }

  @Test
  void aStatementOnAConnectionWithAutocommitOffIsCommittedAndTheConnectionGivenBackAsItWas()
      throws SQLException {
    DB.execute("CREATE TABLE IF NOT EXISTS statements_test_rows (note text)");
    try (Connection held = DB.dataSource().getConnection()) {
      held.setAutoCommit(false);
      Statements statements = new Statements(oneConnection(held), "writer_fence", 5);
      String note = "committed-" + UUID.randomUUID();

      long inserted =
          statements.query(
              "WITH i AS (INSERT INTO statements_test_rows VALUES (?) RETURNING 1)"
                  + " SELECT count(*) FROM i",
              rs -> {
                rs.next();
                return rs.getLong(1);
              },
              note);

      assertThat(inserted).isEqualTo(1);
      assertThat(held.getAutoCommit()).as("autocommit off again").isFalse();
      assertThat(
              DB.queryValue(
                  Long.class, "SELECT count(*) FROM statements_test_rows WHERE note = ?", note))
          .as("seen by another session: committed")
          .isEqualTo(1L);

      assertThatThrownBy(
              () -> statements.call("broken", "SELECT * FROM no_such_table_here", rs -> null))
          .isInstanceOf(WriterFenceUnavailableException.class)
          .hasMessageContaining("42P01");
      assertThat(held.getAutoCommit()).as("autocommit off again after a failure").isFalse();
    }
  }

  private static List<String> columns(ResultSet rs) throws SQLException {
    rs.next();
    List<String> columns = new ArrayList<>();
    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
      columns.add(rs.getString(i));
    }
    return columns;
  }

  /**
   * A DataSource that hands out {@code connection} each time; closing what it hands out is a no-op.
   */
  private static DataSource oneConnection(Connection connection) {
    Connection handle =
        (Connection)
            Proxy.newProxyInstance(
                StatementsTest.class.getClassLoader(),
                new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("close")) {
                    return null;
                  }
                  try {
                    return method.invoke(connection, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });
    return (DataSource)
        Proxy.newProxyInstance(
            StatementsTest.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              if (method.getName().equals("getConnection")) {
                return handle;
              }
              throw new UnsupportedOperationException(method.getName());
            });
  }
}
