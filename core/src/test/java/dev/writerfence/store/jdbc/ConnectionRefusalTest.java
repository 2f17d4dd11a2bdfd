package dev.writerfence.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.writerfence.FenceRequest;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.SwitchableDataSource;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A fence whose data source gets no session says first what the database said: the wrong password,
 * the unknown role or database, the refused connection, then the SQLState and that the lease cannot
 * be confirmed. Against the real embedded server, as pgjdbc (and a HikariCP pool over it) reports.
 */
class ConnectionRefusalTest {
  private static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  /** A role that must give its password: the embedded server trusts every other role. */
  private static final String ROLE = "wf_password_role";

  @BeforeAll
  static void aRoleThatMustGiveItsPassword() throws Exception {
    DB.execute(
        "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"
            + ROLE
            + "') THEN CREATE ROLE "
            + ROLE
            + " LOGIN PASSWORD 'right-password'; END IF; END $$");
    // pg_hba.conf takes the first line that matches: this one, for this role alone, ahead of the
    // embedded server's trust lines.
    Path hba = Path.of(DB.queryValue(String.class, "SHOW hba_file"));
    String line = "host all " + ROLE + " 127.0.0.1/32 scram-sha-256";
    String lines = Files.readString(hba);
    if (!lines.contains(line)) {
      Files.writeString(hba, line + "\n" + lines);
    }
    assertThat(DB.queryValue(Boolean.class, "SELECT pg_reload_conf()")).isTrue();
    // The postmaster reloads on its signal: wait until a wrong password is refused.
    await("pg_hba.conf reloaded")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> refuses(DB.dataSource(ROLE, "wrong-password")));
  }

  private static boolean refuses(DataSource dataSource) {
    try (Connection c = dataSource.getConnection()) {
      return !c.isValid(1); // trusted still: the reload has not been read yet
    } catch (SQLException e) {
      return "28P01".equals(e.getSQLState());
    }
  }

  private static WriterFenceUnavailableException refusal(DataSource dataSource) {
    WriterFence fence = WriterFence.builder(dataSource).build();
    try {
      return catchThrowableOfType(
          WriterFenceUnavailableException.class,
          () -> fence.tryAcquire(FenceRequest.of(FenceNames.random("refused"))));
    } finally {
      fence.close();
    }
  }

  @Test
  void aWrongPasswordLeadsWithTheAuthenticationFailure() {
    WriterFenceUnavailableException e = refusal(DB.dataSource(ROLE, "wrong-password"));

    assertThat(e)
        .hasMessage(
            "writer-fence: PostgreSQL refused the connection: password authentication failed for"
                + " user \""
                + ROLE
                + "\" (SQLState 28P01); the lease cannot be confirmed");
    assertThat(e.sqlState()).hasValue("28P01");
  }

  @Test
  void aPoolOverAWrongPasswordLeadsWithTheAuthenticationFailureNotThePoolsTimeout() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(DB.jdbcUrl());
    config.setUsername(ROLE);
    config.setPassword("wrong-password");
    config.setInitializationFailTimeout(-1); // start without a connection, fail at the borrow
    config.setConnectionTimeout(500);
    try (HikariDataSource pool = new HikariDataSource(config)) {
      WriterFenceUnavailableException e = refusal(pool);

      assertThat(e)
          .hasMessageStartingWith(
              "writer-fence: PostgreSQL refused the connection: password authentication failed"
                  + " for user \""
                  + ROLE
                  + "\" (SQLState 28P01)")
          .hasMessageNotContaining("Connection is not available");
    }
  }

  @Test
  void anUnknownDatabaseOrRoleLeadsWithWhatIsMissing() {
    assertThat(refusal(DB.dataSource("wf_no_such_database", "postgres", null)))
        .hasMessage(
            "writer-fence: PostgreSQL refused the connection: database \"wf_no_such_database\""
                + " does not exist (SQLState 3D000); the lease cannot be confirmed");
    assertThat(refusal(DB.dataSource("wf_no_such_role", null)))
        .hasMessage(
            "writer-fence: PostgreSQL refused the connection: role \"wf_no_such_role\" does not"
                + " exist (SQLState 28000); the lease cannot be confirmed");
  }

  @Test
  void anUnreachableServerLeadsWithTheConnectionFailure() {
    SwitchableDataSource db = new SwitchableDataSource(DB.dataSource());
    db.cutOff();
    try {
      assertThat(refusal(db))
          .hasMessageStartingWith("writer-fence: the database cannot be reached: Connection to")
          .hasMessageEndingWith("(SQLState 08001); the lease cannot be confirmed");
    } finally {
      db.restore();
    }
  }
}
