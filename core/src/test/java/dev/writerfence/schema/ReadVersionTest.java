package dev.writerfence.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.testing.ContractTampering;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.OwnerAndAppRoles;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * {@link InstalledContract#readVersion}: the installed version from the catalog alone, readable by
 * a role that may only connect (the starter's Flyway run asks it before deciding to run).
 */
class ReadVersionTest {
  private final EmbeddedDatabase db = EmbeddedDatabase.get();
  private final OwnerAndAppRoles roles = OwnerAndAppRoles.create(db);
  private final String database = roles.database(db, false);

  @Test
  void aRoleThatMayOnlyConnectReadsTheInstalledVersionAndZeroWithoutAContract()
      throws SQLException {
    DataSource app = roles.appDataSource(db, database);
    assertThat(readVersion(app, "writer_fence")).as("no schema").isZero();

    FenceSchema.defaults().install(roles.ownerDataSource(db, database));

    assertThat(readVersion(app, "writer_fence"))
        .as("installed without a grant to the role, read all the same")
        .isEqualTo(FenceSchema.VERSION);
    assertThat(readVersion(app, "other_schema")).isZero();
  }

  @Test
  void aNewerVersionIsReadAsItsNumber() throws SQLException {
    DataSource owner = roles.ownerDataSource(db, database);
    FenceSchema.defaults().install(owner);
    try (Connection c = owner.getConnection();
        Statement st = c.createStatement()) {
      st.execute(ContractTampering.schemaVersionAnswering("writer_fence", FenceSchema.VERSION + 1));
    }

    assertThat(readVersion(roles.appDataSource(db, database), "writer_fence"))
        .isEqualTo(FenceSchema.VERSION + 1);
  }

  @Test
  void aSchemaNameThatIsNotAPlainIdentifierIsRefusedNamingIt() {
    assertThatThrownBy(() -> readVersion(roles.appDataSource(db, database), "Bad-Name"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Bad-Name'");
  }

  private static int readVersion(DataSource ds, String schema) throws SQLException {
    try (Connection c = ds.getConnection()) {
      return InstalledContract.readVersion(c, schema);
    }
  }
}
