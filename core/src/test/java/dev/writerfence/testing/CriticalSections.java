package dev.writerfence.testing;

import dev.writerfence.schema.FenceSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * A record of critical sections in a database table: who was inside, with which fencing token, and
 * when it entered and left by the database clock ({@code clock_timestamp()}), so that sections run
 * by different threads and processes can be checked against each other afterwards.
 */
public final class CriticalSections {
  /**
   * One critical section.
   *
   * @param writer who ran it
   * @param fencingToken the fencing token of the lease it ran under
   * @param enteredAt database time, read after the lease was acquired
   * @param exitedAt database time, read before the lease was released
   */
  public record Section(
      String writer, long fencingToken, OffsetDateTime enteredAt, OffsetDateTime exitedAt) {}

  private final DataSource dataSource;
  private final String table;

  /**
   * @param dataSource where the table lives
   * @param table a plain lower-case table name
   */
  public CriticalSections(DataSource dataSource, String table) {
    this.dataSource = dataSource;
    this.table = FenceSchema.checkIdentifier("table", table);
  }

  /**
   * Creates the table if it does not exist.
   *
   * @return this
   */
  public CriticalSections create() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + table
              + " (writer text NOT NULL, fencing_token bigint NOT NULL,"
              + " entered_at timestamptz NOT NULL, exited_at timestamptz NOT NULL)");
    }
    return this;
  }

  /**
   * @return a recorder on a connection of its own, for one thread
   */
  public Recorder recorder() throws SQLException {
    return new Recorder(dataSource.getConnection(), table);
  }

  /**
   * @return every recorded section, in order of entry
   */
  public List<Section> load() throws SQLException {
    List<Section> sections = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT writer, fencing_token, entered_at, exited_at FROM "
                    + table
                    + " ORDER BY entered_at, exited_at")) {
      while (rs.next()) {
        sections.add(
            new Section(
                rs.getString(1),
                rs.getLong(2),
                rs.getObject(3, OffsetDateTime.class),
                rs.getObject(4, OffsetDateTime.class)));
      }
    }
    return sections;
  }

  /**
   * @param sections sections in order of entry
   * @return one line per pair of neighbours that overlap in time or whose fencing tokens do not
   *     strictly increase; empty when the record shows one writer at a time
   */
  public static List<String> violations(List<Section> sections) {
    List<String> violations = new ArrayList<>();
    for (int i = 1; i < sections.size(); i++) {
      Section before = sections.get(i - 1);
      Section after = sections.get(i);
      if (after.enteredAt().isBefore(before.exitedAt())) {
        violations.add("overlap: " + before + " and " + after);
      }
      if (after.fencingToken() <= before.fencingToken()) {
        violations.add("token order: " + before + " then " + after);
      }
    }
    return violations;
  }

  /** Records the sections of one thread on a connection of its own. Not thread-safe. */
  public static final class Recorder implements AutoCloseable {
    private final Connection connection;
    private final PreparedStatement now;
    private final PreparedStatement insert;

    private Recorder(Connection connection, String table) throws SQLException {
      this.connection = connection;
      this.now = connection.prepareStatement("SELECT clock_timestamp()");
      this.insert =
          connection.prepareStatement(
              "INSERT INTO "
                  + table
                  + " (writer, fencing_token, entered_at, exited_at)"
                  + " VALUES (?, ?, ?, clock_timestamp())");
    }

    /**
     * Call at the start of a critical section, under the lease.
     *
     * @return the database time now
     */
    public OffsetDateTime enter() throws SQLException {
      try (ResultSet rs = now.executeQuery()) {
        rs.next();
        return rs.getObject(1, OffsetDateTime.class);
      }
    }

    /**
     * Call at the end of a critical section, still under the lease: records it with the database
     * time now as its exit.
     *
     * @param writer who ran it
     * @param fencingToken the lease's fencing token
     * @param enteredAt what {@link #enter()} returned
     */
    public void exit(String writer, long fencingToken, OffsetDateTime enteredAt)
        throws SQLException {
      insert.setString(1, writer);
      insert.setLong(2, fencingToken);
      insert.setObject(3, enteredAt);
      insert.executeUpdate();
    }

    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }
}
