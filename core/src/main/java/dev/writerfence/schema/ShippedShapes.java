package dev.writerfence.schema;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shape of every contract version this jar ships, as the server itself builds it: the shipped
 * migrations are applied one after the other to a scratch schema, the catalog is read after each,
 * and everything is rolled back. Nothing is kept in a list by hand, so a new migration in {@link
 * FenceSchema#MIGRATION_RESOURCES} is known as soon as it is shipped, and what PostgreSQL prints
 * for a type or a constraint is compared with what the same server prints (ADR 50).
 */
final class ShippedShapes {
  private static final Pattern VERSION = Pattern.compile("/V(\\d+)__[^/]*\\.sql$");

  /**
   * One shipped version.
   *
   * @param version the contract version, from the migration's file name ({@code V2__...}: 2)
   * @param shape what the catalog holds after it and every earlier migration ran
   */
  record Version(int version, CatalogShape shape) {}

  private ShippedShapes() {}

  /**
   * Builds every shipped version in a scratch schema and rolls it back.
   *
   * <p>The connection must be allowed to create a schema (CREATE on the database). In a transaction
   * already (auto-commit off) the work is undone to a savepoint and the transaction goes on; with
   * auto-commit on it runs in a transaction of its own, rolled back.
   *
   * @param connection a connection of a role that may create a schema
   * @return every version, oldest first, never empty
   * @throws SQLException when the scratch schema cannot be created (SQLState 42501 without CREATE
   *     on the database) or a migration fails
   */
  static List<Version> build(Connection connection) throws SQLException {
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    Savepoint before = autoCommit ? null : connection.setSavepoint();
    try {
      return applyEach(connection);
    } finally {
      if (before == null) {
        connection.rollback();
        connection.setAutoCommit(true);
      } else {
        connection.rollback(before);
        connection.releaseSavepoint(before);
      }
    }
  }

  private static List<Version> applyEach(Connection connection) throws SQLException {
    // Unique per call: two installers may build at once, each inside its own transaction.
    String scratch =
        "writer_fence_shape_" + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36);
    FenceSchema installer = FenceSchema.defaults().schema(scratch);
    List<Version> versions = new ArrayList<>();
    try (Statement st = connection.createStatement()) {
      for (String resource : FenceSchema.MIGRATION_RESOURCES) {
        st.execute(installer.fill(FenceSchema.migrationTemplate(resource)));
        versions.add(new Version(version(resource), CatalogShape.read(connection, scratch)));
      }
    }
    return versions;
  }

  /**
   * @param resource a migration's class-path location, for example {@code
   *     writer-fence/db/migration/V2__waiter_queue.sql}
   * @return its version, 2 there
   * @throws IllegalStateException when the name has no {@code V<n>__} version
   */
  static int version(String resource) {
    Matcher m = VERSION.matcher(resource);
    if (!m.find()) {
      throw new IllegalStateException(
          "writer-fence: migration " + resource + " is not named V<version>__<description>.sql");
    }
    return Integer.parseInt(m.group(1));
  }
}
