package dev.writerfence.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.spi.TransientLeaseStoreException;
import java.sql.SQLException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The messages pgjdbc reports through PgBouncer in transaction mode, copied from real runs (the
 * fault suite reproduces them against a real pooler); here each one is sorted on its own.
 */
class SqlErrorsTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "42P05|ERROR: prepared statement \"S_1\" already exists",
        "26000|ERROR: prepared statement \"S_1\" does not exist",
        "08P01|ERROR: bind message supplies 3 parameters, but prepared statement \"S_1\" requires 2"
      })
  void aPreparedStatementClashNamesPrepareThresholdZero(String state, String message) {
    RuntimeException e = SqlErrors.classify("f", "writer_fence", new SQLException(message, state));
    assertThat(e)
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("prepareThreshold=0")
        .hasMessageContaining("SQLState " + state);
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "08P01|ERROR: invalid frontend message type 0",
        "08006|An I/O error occurred while sending to the backend."
      })
  void otherConnectionErrorsSayTheDatabaseCannotBeReached(String state, String message) {
    RuntimeException e = SqlErrors.classify("f", "writer_fence", new SQLException(message, state));
    assertThat(e)
        .isInstanceOf(WriterFenceUnavailableException.class)
        .hasMessageContaining("cannot be reached")
        .hasMessageNotContaining("prepareThreshold");
  }

  @ParameterizedTest
  @CsvSource({"40001", "40P01", "55P03"})
  void serializationDeadlockAndLockTimeoutAreRetried(String state) {
    assertThat(SqlErrors.classify("f", "writer_fence", new SQLException("x", state)))
        .isInstanceOf(TransientLeaseStoreException.class);
  }
}
