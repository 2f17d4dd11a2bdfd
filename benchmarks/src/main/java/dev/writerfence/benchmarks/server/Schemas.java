package dev.writerfence.benchmarks.server;

import dev.writerfence.schema.FenceSchema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The tables of every backend, each from its own source: writer-fence's SQL contract, ShedLock's
 * table as its README gives it for PostgreSQL, Spring Integration's {@code INT_LOCK} from the
 * {@code schema-postgresql.sql} in its jar, and the raw floor's one-row-per-name table.
 */
public final class Schemas {
  /** ShedLock README, "Configure LockProvider", JdbcTemplate, PostgreSQL. */
  static final String SHEDLOCK_TABLE =
      "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until TIMESTAMP NOT"
          + " NULL, locked_at TIMESTAMP NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY"
          + " (name))";

  static final String FLOOR_TABLE =
      "CREATE TABLE IF NOT EXISTS bench_floor (name text PRIMARY KEY, n bigint NOT NULL)";

  private static final String SPRING_INTEGRATION_SCHEMA =
      "/org/springframework/integration/jdbc/schema-postgresql.sql";

  private Schemas() {}

  /**
   * @param superuser a data source of the server's superuser
   * @throws SQLException when a statement fails
   */
  public static void install(DataSource superuser) throws SQLException {
    FenceSchema.defaults().install(superuser);
    try (Connection c = superuser.getConnection();
        Statement st = c.createStatement()) {
      st.execute(SHEDLOCK_TABLE);
      st.execute(intLockTable());
      st.execute(FLOOR_TABLE);
    }
  }

  /**
   * @return the {@code CREATE TABLE INT_LOCK} statement of the Spring Integration jar on the class
   *     path
   * @throws IllegalStateException when the jar's script has no such statement
   */
  static String intLockTable() {
    try (InputStream in = Schemas.class.getResourceAsStream(SPRING_INTEGRATION_SCHEMA)) {
      if (in == null) {
        throw new IllegalStateException(SPRING_INTEGRATION_SCHEMA + " is not on the class path");
      }
      String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      Matcher m =
          Pattern.compile("CREATE TABLE INT_LOCK\\s*\\(.*?\\);", Pattern.DOTALL).matcher(script);
      if (!m.find()) {
        throw new IllegalStateException("no CREATE TABLE INT_LOCK in " + SPRING_INTEGRATION_SCHEMA);
      }
      String ddl = m.group();
      return ddl.substring(0, ddl.length() - 1);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + SPRING_INTEGRATION_SCHEMA, e);
    }
  }
}
