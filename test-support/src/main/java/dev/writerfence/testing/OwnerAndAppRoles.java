package dev.writerfence.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The production model's two roles (docs/operations.md) in the embedded server: an owner role that
 * owns fresh databases and installs the SQL contract there, and an application role that may only
 * connect to them (no CREATE on the database), for tests of who installs and who fences.
 *
 * @param owner the owner role's name; its password is {@value #OWNER_PASSWORD} unless it existed
 * @param app the application role's name; its password is {@value #APP_PASSWORD} unless it existed
 */
public record OwnerAndAppRoles(String owner, String app) {
  /** The password a role created here gets when it is the owner. */
  public static final String OWNER_PASSWORD = "owner";

  /** The password a role created here gets when it is the application's. */
  public static final String APP_PASSWORD = "app";

  /**
   * @param db the server
   * @return two new roles with names of their own ({@code wf_owner_…}, {@code wf_app_…})
   */
  public static OwnerAndAppRoles create(EmbeddedDatabase db) {
    String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    return named(db, "wf_owner_" + suffix, "wf_app_" + suffix);
  }

  /**
   * @param db the server
   * @param owner the owner role's name, a plain lower-case identifier
   * @param app the application role's name, a plain lower-case identifier
   * @return the two roles, each created (LOGIN, with its password) unless it exists
   */
  public static OwnerAndAppRoles named(EmbeddedDatabase db, String owner, String app) {
    for (String role : List.of(owner, app)) {
      db.execute(
          "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '"
              + role
              + "') THEN CREATE ROLE "
              + role
              + " LOGIN PASSWORD '"
              + (role.equals(owner) ? OWNER_PASSWORD : APP_PASSWORD)
              + "'; END IF; END $$");
    }
    return new OwnerAndAppRoles(owner, app);
  }

  /**
   * A fresh UTF8 database the owner owns: the application role may connect and nothing more
   * (CONNECT is revoked from PUBLIC and granted to it alone), or also create its own tables in
   * {@code public}.
   *
   * @param db the server
   * @param appCreatesInPublic whether the application role gets USAGE and CREATE on {@code public}
   * @return the database's name
   */
  public String database(EmbeddedDatabase db, boolean appCreatesInPublic) {
    String database = "wf_prod_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    db.execute(
        "CREATE DATABASE " + database + " OWNER " + owner + " ENCODING 'UTF8' TEMPLATE template0",
        "REVOKE ALL ON DATABASE " + database + " FROM PUBLIC",
        "GRANT CONNECT ON DATABASE " + database + " TO " + app);
    if (appCreatesInPublic) {
      try (Connection c = db.dataSource(database, "postgres", null).getConnection();
          Statement st = c.createStatement()) {
        st.execute("GRANT USAGE, CREATE ON SCHEMA public TO " + app);
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }
    return database;
  }

  /**
   * @param db the server
   * @param database a database
   * @return the role that owns {@code writer_fence.lease} there (who installed the contract), or
   *     {@code null} when there is none
   */
  public static String leaseOwner(EmbeddedDatabase db, String database) {
    try (Connection c = db.dataSource(database, "postgres", null).getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT tableowner FROM pg_tables"
                    + " WHERE schemaname = 'writer_fence' AND tablename = 'lease'")) {
      return rs.next() ? rs.getString(1) : null;
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * @param db the server
   * @param database one of this pair's databases
   * @return connections of the owner role (password {@value #OWNER_PASSWORD})
   */
  public DataSource ownerDataSource(EmbeddedDatabase db, String database) {
    return db.dataSource(database, owner, OWNER_PASSWORD);
  }

  /**
   * @param db the server
   * @param database one of this pair's databases
   * @return connections of the application role (password {@value #APP_PASSWORD})
   */
  public DataSource appDataSource(EmbeddedDatabase db, String database) {
    return db.dataSource(database, app, APP_PASSWORD);
  }
}
