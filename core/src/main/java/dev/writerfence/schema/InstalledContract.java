package dev.writerfence.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a schema holds, measured against the contract this jar ships: the installed version and
 * every difference of shape (tables' columns, types, NOT NULL, primary keys and constraints;
 * functions' signatures, results, languages, rights, settings and bodies). {@link
 * FenceSchema#install} refuses to install over a schema with differences or of a newer version, and
 * {@code schema verify} prints them (ADR 50, ADR 51).
 *
 * <p>The expected shape is not a list kept by hand: the shipped migrations are applied to a scratch
 * schema in a transaction that is rolled back, and the server's own catalog is read there.
 */
public final class InstalledContract {
  /** schema_version()'s body in every shipped version: {@code SELECT <n>}. */
  private static final Pattern VERSION_BODY = Pattern.compile("\\s*SELECT\\s+(\\d{1,9})\\s*;?\\s*");

  private final String schema;
  private final boolean empty;
  private final int version;
  private final int newestShipped;
  private final List<String> differences;

  private InstalledContract(
      String schema, boolean empty, int version, int newestShipped, List<String> differences) {
    this.schema = schema;
    this.empty = empty;
    this.version = version;
    this.newestShipped = newestShipped;
    this.differences = differences;
  }

  /**
   * Reads a schema and compares it with the shipped contract. When the schema holds no table and no
   * function, nothing else runs; otherwise the shipped migrations are applied to a scratch schema
   * and rolled back (to a savepoint when the connection is in a transaction already), so nothing
   * the connection can see changes.
   *
   * @param connection a connection of a role that may create a schema (CREATE on the database)
   * @param schema the contract's schema, a plain lower-case identifier
   * @return what the schema holds
   * @throws IllegalArgumentException when {@code schema} is not such an identifier
   * @throws SQLException when the catalog cannot be read or the scratch schema cannot be created
   *     (SQLState 42501 without CREATE on the database)
   */
  public static InstalledContract inspect(Connection connection, String schema)
      throws SQLException {
    FenceSchema.checkIdentifier("schema", schema);
    CatalogShape installed = CatalogShape.read(connection, schema);
    int newest =
        ShippedShapes.version(
            FenceSchema.MIGRATION_RESOURCES.get(FenceSchema.MIGRATION_RESOURCES.size() - 1));
    if (installed.isEmpty()) {
      return new InstalledContract(schema, true, 0, newest, List.of());
    }
    List<ShippedShapes.Version> shipped = ShippedShapes.build(connection);
    CatalogShape.Function versionFunction = installed.functions().get("schema_version()");
    int version = versionFunction == null ? 0 : version(versionFunction, shipped);
    if (version > newest) {
      return new InstalledContract(schema, false, version, newest, List.of());
    }
    List<String> differences = new ShapeComparison(shipped, installed, version).differences();
    return new InstalledContract(schema, false, version, newest, differences);
  }

  /**
   * The contract version a schema holds, as {@code <schema>.schema_version()} answers it, read from
   * the catalog: nothing runs or is created, so a role with no right beyond CONNECT (one that may
   * not execute the function either) can ask. Unlike {@link #inspect} it does not compare shapes.
   *
   * @param connection any connection to the database
   * @param schema the contract's schema, a plain lower-case identifier
   * @return the version; 0 when the schema or its {@code schema_version()} is missing or is not the
   *     contract's one-line {@code SELECT <n>}
   * @throws IllegalArgumentException when {@code schema} is not such an identifier
   * @throws SQLException when the catalog cannot be read
   */
  public static int readVersion(Connection connection, String schema) throws SQLException {
    FenceSchema.checkIdentifier("schema", schema);
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT p.prosrc FROM pg_catalog.pg_proc p"
                + " JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace"
                + " WHERE n.nspname = ? AND p.proname = 'schema_version' AND p.pronargs = 0"
                + " AND p.prorettype = 'pg_catalog.int4'::pg_catalog.regtype")) {
      ps.setString(1, schema);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return 0;
        }
        Matcher m = VERSION_BODY.matcher(rs.getString(1));
        return m.matches() ? Integer.parseInt(m.group(1)) : 0;
      }
    }
  }

  /** The version schema_version() answers, read from its body rather than by running it. */
  private static int version(CatalogShape.Function function, List<ShippedShapes.Version> shipped) {
    for (ShippedShapes.Version v : shipped) {
      if (function.equals(v.shape().functions().get("schema_version()"))) {
        return v.version();
      }
    }
    // A newer writer-fence writes the same one-line body with a larger number.
    Matcher m = VERSION_BODY.matcher(function.body());
    return m.matches() && "integer".equals(function.result()) ? Integer.parseInt(m.group(1)) : 0;
  }

  /**
   * @return whether the schema holds no table and no function (absent, or created empty)
   */
  public boolean isEmpty() {
    return empty;
  }

  /**
   * @return the installed contract version, as {@code schema_version()} answers it; 0 when there is
   *     no {@code schema_version()} or it is not one of the contract's
   */
  public int version() {
    return version;
  }

  /**
   * @return whether the installed version is newer than any this jar ships (its shape is then not
   *     compared: this jar does not know it)
   */
  public boolean isNewer() {
    return version > newestShipped;
  }

  /**
   * @return one line per way the schema differs from the contract of its version, for example
   *     {@code lease.fence_name: no primary key}; empty when it has the contract's shape, or is
   *     empty, or is of a newer version
   */
  public List<String> differences() {
    return differences;
  }

  /**
   * Refuses what installing the shipped contract over this schema would break or hide.
   *
   * @throws SQLException SQLState 55000 naming both versions when the installed one is newer (this
   *     jar never downgrades), or naming every difference when the schema holds objects of another
   *     shape under the contract's names
   */
  public void requireInstallable() throws SQLException {
    if (isNewer()) {
      throw new SQLException(
          "writer-fence: schema '"
              + schema
              + "' holds the SQL contract version "
              + version
              + ", newer than version "
              + newestShipped
              + " that this writer-fence knows; it is left as it is (no downgrade): use a"
              + " writer-fence that ships contract version "
              + version
              + " or later",
          "55000");
    }
    if (!differences.isEmpty()) {
      throw new SQLException(
          "writer-fence: schema '"
              + schema
              + "' holds objects under the SQL contract's names of another shape than the"
              + " contract"
              + (version > 0 ? " version " + version : "")
              + "; nothing was changed. Move those objects aside (or install into another schema)"
              + " and install again. Differences:\n  "
              + String.join("\n  ", differences),
          "55000");
    }
  }
}
