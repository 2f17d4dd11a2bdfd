package dev.writerfence.spring.boot;

import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.FlywayException;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * Keeps PostgreSQL's notices of the contract's idempotent statements out of Flyway's log, where
 * each is a WARN line though nothing is wrong: {@code schema "writer_fence" already exists,
 * skipping} on every first run (Flyway has just created the schema for its history table), and
 * every {@code ... already exists} of a take-over. Before each migration, inside its transaction,
 * {@code SET LOCAL client_min_messages = warning}: it ends with that transaction, so a pooled
 * connection goes back to the pool as it came, and warnings and errors still reach the log. The
 * migrations' text, and so their checksums in existing histories, stays as shipped (ADR 63).
 */
final class QuietNotices implements Callback {
  static final String SQL = "SET LOCAL client_min_messages = warning";

  @Override
  public boolean supports(Event event, Context context) {
    return event == Event.BEFORE_EACH_MIGRATE;
  }

  @Override
  public boolean canHandleInTransaction(Event event, Context context) {
    return true;
  }

  @Override
  public void handle(Event event, Context context) {
    try (Statement st = context.getConnection().createStatement()) {
      st.execute(SQL);
    } catch (SQLException e) {
      throw new FlywayException("writer-fence: " + SQL + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public String getCallbackName() {
    return "writer-fence quiet notices";
  }
}
