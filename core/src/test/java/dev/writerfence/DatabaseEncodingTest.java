package dev.writerfence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract needs a UTF8 database: only there does {@code char_length} count what Java counts,
 * and only there can every name Java accepts be stored. Elsewhere the installer refuses, and a
 * value the database cannot represent is a bad value, never an unavailable database.
 */
class DatabaseEncodingTest extends FenceTestSupport {

  @ParameterizedTest
  @ValueSource(strings = {"SQL_ASCII", "LATIN1"})
  void installRefusesADatabaseThatIsNotUtf8NamingTheEncoding(String encoding) throws Exception {
    DataSource database = createDatabase(encoding);

    Throwable refused = catchThrowable(() -> FenceSchema.defaults().install(database));

    assertThat(refused)
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("server_encoding " + encoding)
        .hasMessageContaining("UTF8");
    assertThat(
            DB.queryValue(
                Long.class,
                "SELECT count(*) FROM pg_database WHERE datname = ? AND encoding = pg_char_to_encoding(?)",
                databaseName(encoding),
                encoding))
        .isEqualTo(1L);
    try (Connection c = database.getConnection();
        Statement st = c.createStatement();
        var rs =
            st.executeQuery(
                "SELECT count(*) FROM pg_namespace WHERE nspname = '"
                    + FenceSchema.DEFAULT_SCHEMA
                    + "'")) {
      rs.next();
      assertThat(rs.getLong(1)).as("nothing was installed").isZero();
    }
  }

  @Test
  void characterTheDatabaseCannotRepresentIsABadValueNotAnUnavailableDatabase() throws Exception {
    DataSource latin1 = createDatabase("LATIN1");
    try (Connection c = latin1.getConnection();
        Statement st = c.createStatement()) {
      st.execute(FenceSchema.defaults().sql()); // by hand, past the installer's refusal
    }
    PgLeaseStore store = new PgLeaseStore(latin1, SCHEMA, Duration.ofSeconds(10));

    Throwable thrown =
        catchThrowable(() -> store.acquire("corpus-\u0100", UUID.randomUUID(), "l", TTL));

    assertThat(thrown)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("22P05")
        .hasMessageContaining("corpus-\u0100");
  }

  @Test
  void nulCharacterPastTheJavaChecksIsABadValueNotAnUnavailableDatabase() throws Exception {
    PgLeaseStore store = new PgLeaseStore(DB.dataSource(), SCHEMA, Duration.ofSeconds(10));
    long before = sql.leaseRows();

    Throwable thrown =
        catchThrowable(() -> store.acquire(name + "\u0000", UUID.randomUUID(), "l", TTL));

    assertThat(thrown).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("22021");
    assertThat(sql.leaseRows()).isEqualTo(before);
  }

  private static String databaseName(String encoding) {
    return "wf_encoding_" + encoding.toLowerCase();
  }

  private static DataSource createDatabase(String encoding) {
    String database = databaseName(encoding);
    DB.execute(
        "DROP DATABASE IF EXISTS " + database,
        "CREATE DATABASE "
            + database
            + " ENCODING '"
            + encoding
            + "' TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C'");
    return DB.dataSource(database, "postgres", null);
  }
}
