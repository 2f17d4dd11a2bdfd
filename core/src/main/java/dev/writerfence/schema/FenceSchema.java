package dev.writerfence.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Installs the SQL contract: schema, lease table, functions, status view and grants.
 *
 * <p>The SQL is the versioned migrations shipped in this jar ({@link #MIGRATION_RESOURCES}: {@code
 * V1__writer_fence.sql}, {@code V2__waiter_queue.sql}, {@code V3__failover_tokens.sql}, {@code
 * V4__millisecond_ttls.sql}, {@code V5__head_lapse.sql}, then {@code V6__cheaper_statements.sql}),
 * with two placeholders in Flyway's and Liquibase's {@code ${name}} syntax: {@code
 * ${writer_fence_schema}} and {@code ${writer_fence_role}}. Flyway and Liquibase users run those
 * files themselves; everyone else calls {@link #install(DataSource)}, which runs them all, in
 * order. Every migration is idempotent, so installing over any earlier version upgrades it in
 * place, keeping every lease row and fencing token. Before it runs, the schema is compared with the
 * shipped contract ({@link InstalledContract}): a newer contract version, or a table or function
 * under the contract's names of another shape, is refused and nothing changes.
 *
 * <p>Installing is idempotent and safe to run from several processes at once: the whole script runs
 * in one transaction under a transaction-scoped advisory lock. The connection must belong to the
 * role that is to own the table (the owner is the only role that can read it). The database must be
 * UTF8: the installer refuses any other {@code server_encoding}, because the input rules of the
 * contract mean what the Java checks mean only there. (Flyway and Liquibase users check that
 * themselves.)
 */
public final class FenceSchema {
  /**
   * Class-path locations of the migrations, in the order they run: {@code
   * writer-fence/db/migration/V1__writer_fence.sql} (the lease) and {@code
   * writer-fence/db/migration/V2__waiter_queue.sql} (the queue of waiters), {@code
   * writer-fence/db/migration/V3__failover_tokens.sql} (fencing tokens that survive a failover) and
   * {@code writer-fence/db/migration/V4__millisecond_ttls.sql} (TTLs in milliseconds), then {@code
   * writer-fence/db/migration/V5__head_lapse.sql} (a dead head passed over fast, lapsed tickets
   * deleted at once), then {@code writer-fence/db/migration/V6__cheaper_statements.sql} (the same
   * calls at a lower cost per statement).
   */
  public static final List<String> MIGRATION_RESOURCES =
      List.of(
          "writer-fence/db/migration/V1__writer_fence.sql",
          "writer-fence/db/migration/V2__waiter_queue.sql",
          "writer-fence/db/migration/V3__failover_tokens.sql",
          "writer-fence/db/migration/V4__millisecond_ttls.sql",
          "writer-fence/db/migration/V5__head_lapse.sql",
          "writer-fence/db/migration/V6__cheaper_statements.sql");

  /** The schema used when none is configured. */
  public static final String DEFAULT_SCHEMA = "writer_fence";

  /**
   * The version of the contract this jar installs, as {@code <schema>.schema_version()} answers.
   */
  public static final int VERSION = 6;

  /** Key of the advisory lock that serializes concurrent installs (ASCII "wfschema"). */
  private static final long INSTALL_LOCK_KEY = 0x7766736368656d61L;

  private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

  private final String schema;
  private final String grantTo;

  private FenceSchema(String schema, String grantTo) {
    this.schema = checkIdentifier("schema", schema);
    this.grantTo = grantTo;
  }

  /**
   * @return the default schema {@code writer_fence}, EXECUTE granted to the installing role only
   */
  public static FenceSchema defaults() {
    return new FenceSchema(DEFAULT_SCHEMA, null);
  }

  /**
   * @param schema a plain lower-case SQL identifier: {@code [a-z_][a-z0-9_]*}, at most 63
   *     characters
   * @return a copy using that schema
   * @throws IllegalArgumentException naming the value when it is not such an identifier
   */
  public FenceSchema schema(String schema) {
    return new FenceSchema(schema, grantTo);
  }

  /**
   * @param role the role the application connects as; it gets USAGE on the schema, EXECUTE on the
   *     functions and SELECT on the status view, and nothing on the table. {@code null} for the
   *     installing role itself
   * @return a copy granting to that role
   * @throws IllegalArgumentException when the role name is empty or longer than 63 characters
   */
  public FenceSchema grantTo(String role) {
    if (role != null && (role.isEmpty() || role.length() > 63 || role.indexOf('\0') >= 0)) {
      throw new IllegalArgumentException(
          "writer-fence: role '" + role + "' is not allowed: 1 to 63 characters");
    }
    return new FenceSchema(schema, role);
  }

  /**
   * Installs, or brings up to date, the contract.
   *
   * @param dataSource a connection of the role that owns (or is to own) the schema, in a database
   *     whose {@code server_encoding} is UTF8
   * @throws SQLException when the database is not UTF8 (SQLState 0A000, nothing is installed), when
   *     the schema holds a newer contract version or objects of another shape under the contract's
   *     names (SQLState 55000 naming both versions or every difference; nothing is changed), or the
   *     database refuses (for example, the grant role does not exist: SQLState 42704)
   */
  public void install(DataSource dataSource) throws SQLException {
    Objects.requireNonNull(dataSource, "dataSource");
    try (Connection connection = dataSource.getConnection()) {
      install(connection);
    }
  }

  /**
   * Installs on the given connection, in one transaction; the connection's auto-commit setting is
   * restored afterwards.
   *
   * @param connection a connection of the owning role, in a UTF8 database; never {@code null}
   * @throws SQLException when the database is not UTF8 (SQLState 0A000, nothing is installed), when
   *     the schema holds a newer contract version or objects of another shape under the contract's
   *     names (SQLState 55000, see {@link InstalledContract}; nothing is changed), or the database
   *     refuses
   */
  public void install(Connection connection) throws SQLException {
    inOneTransaction(
        connection,
        st -> {
          requireUtf8(st);
          st.execute("SELECT pg_advisory_xact_lock(" + INSTALL_LOCK_KEY + ")");
          // Every statement of the contract is idempotent (CREATE ... IF NOT EXISTS), so it would
          // "re-apply" over a foreign table of the same name and leave it as it is: compare first.
          InstalledContract.inspect(connection, schema).requireInstallable();
          st.execute(sql());
        });
  }

  /** Work on a statement that commits together or not at all. */
  @FunctionalInterface
  interface Work {
    void run(Statement statement) throws SQLException;
  }

  /**
   * Runs {@code work} in one transaction on {@code connection}, rolled back when it throws; the
   * connection's auto-commit setting is restored afterwards.
   */
  static void inOneTransaction(Connection connection, Work work) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement st = connection.createStatement()) {
      work.run(st);
      connection.commit();
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /**
   * The contract's input rules count characters with {@code char_length} and match them with
   * Unicode ranges, which mean what Java means only in a UTF8 database; in another encoding names
   * that Java accepts could not be stored, or would be counted in bytes.
   */
  private static void requireUtf8(Statement st) throws SQLException {
    String encoding;
    try (ResultSet rs = st.executeQuery("SELECT current_setting('server_encoding')")) {
      rs.next();
      encoding = rs.getString(1);
    }
    if (!"UTF8".equals(encoding)) {
      throw new SQLException(
          "writer-fence: cannot install the SQL contract in a database with server_encoding "
              + encoding
              + ": it needs a UTF8 database (fence names and labels are Unicode text, counted in"
              + " code points, and Java and SQL check them alike only in UTF8); create one with"
              + " CREATE DATABASE ... ENCODING 'UTF8' TEMPLATE template0",
          "0A000");
    }
  }

  /**
   * @return every migration, in order, with both placeholders filled in
   */
  public String sql() {
    return fill(migrationTemplate());
  }

  /** A migration template with this installer's schema and role filled in. */
  String fill(String template) {
    String role = grantTo == null ? "CURRENT_USER" : '"' + grantTo.replace("\"", "\"\"") + '"';
    return template.replace("${writer_fence_schema}", schema).replace("${writer_fence_role}", role);
  }

  /**
   * @return every migration as shipped, in order, one after the other, placeholders unfilled
   */
  public static String migrationTemplate() {
    StringBuilder sql = new StringBuilder();
    for (String resource : MIGRATION_RESOURCES) {
      sql.append(migrationTemplate(resource)).append('\n');
    }
    return sql.toString();
  }

  /**
   * @param resource one of {@link #MIGRATION_RESOURCES}
   * @return that migration as shipped, placeholders unfilled
   * @throws IllegalStateException when it is not on the class path
   */
  public static String migrationTemplate(String resource) {
    try (InputStream in = FenceSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("writer-fence: " + resource + " is missing");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * @return the schema name
   */
  public String schemaName() {
    return schema;
  }

  /**
   * Checks a plain lower-case SQL identifier, as used for the schema.
   *
   * @param what what the identifier names, for the message
   * @param identifier the value to check
   * @return the same value
   * @throws IllegalArgumentException naming the value when it is not {@code [a-z_][a-z0-9_]*} of at
   *     most 63 characters
   */
  public static String checkIdentifier(String what, String identifier) {
    if (identifier == null || !IDENTIFIER.matcher(identifier).matches()) {
      throw new IllegalArgumentException(
          "writer-fence: "
              + what
              + " '"
              + identifier
              + "' is not allowed: a lower-case SQL identifier [a-z_][a-z0-9_]*, at most 63"
              + " characters");
    }
    return identifier;
  }
}
