package dev.writerfence.testing;

import dev.writerfence.schema.FenceSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A record of critical sections in a database table, written by threads and processes alike and
 * checked afterwards with {@link SectionChecker}. A section is inserted (committed) when it is
 * entered and closed when it is left, both stamped with the recording database's {@code
 * clock_timestamp()}, so every recorder of a run reads one clock. A writer killed inside a section
 * (SIGKILL) leaves it open; {@link #load(Map)} closes it at a time after the process was seen dead,
 * which can only make the overlap check stricter.
 *
 * <p>Keep the record on a database that the fault under test does not touch, so a restart or a cut
 * of the fence's database loses no entry.
 */
public final class CriticalSections {
  private final DataSource dataSource;
  private final String table;

  /**
   * @param dataSource where the table lives
   * @param table a plain lower-case table name
   * @throws IllegalArgumentException when the table name is not a plain identifier
   */
  public CriticalSections(DataSource dataSource, String table) {
    this.dataSource = dataSource;
    this.table = FenceSchema.checkIdentifier("table", table);
  }

  /**
   * @param prefix a plain lower-case prefix
   * @return a table name no other run uses: the prefix, then a random suffix
   */
  public static String freshTable(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "");
  }

  /**
   * @return the table's name
   */
  public String table() {
    return table;
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
              + " (id bigserial PRIMARY KEY, writer text NOT NULL, pid bigint NOT NULL,"
              + " fencing_token bigint NOT NULL,"
              + " entered_at timestamptz NOT NULL DEFAULT clock_timestamp(),"
              + " exited_at timestamptz)");
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
   * @return the time now on the recording database's clock
   */
  public Instant now() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }

  /**
   * @return every recorded section, in order of entry
   * @throws AssertionError when a section was left open (its writer died inside it)
   */
  public List<Section> load() throws SQLException {
    return load(Map.of());
  }

  /**
   * Every section in order of entry, open ones closed at their process's death.
   *
   * @param deathOf per process id, a time on the recording database's clock after that process was
   *     seen dead
   * @return the sections
   * @throws AssertionError for an open section of a process that is not in {@code deathOf}
   */
  public List<Section> load(Map<Long, Instant> deathOf) throws SQLException {
    List<Section> sections = new ArrayList<>();
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT writer, pid, fencing_token, entered_at, exited_at FROM "
                    + table
                    + " ORDER BY entered_at, id")) {
      while (rs.next()) {
        long pid = rs.getLong(2);
        Timestamp exitedAt = rs.getTimestamp(5);
        Instant exited = exitedAt == null ? deathOf.get(pid) : exitedAt.toInstant();
        if (exited == null) {
          throw new AssertionError(
              "an open section of " + rs.getString(1) + ", a writer that was not killed");
        }
        sections.add(
            new Section(rs.getString(1), rs.getLong(3), rs.getTimestamp(4).toInstant(), exited));
      }
    }
    return sections;
  }

  /**
   * @return what {@link SectionChecker#check} finds in the whole record
   * @throws AssertionError when a section was left open
   */
  public SectionReport check() throws SQLException {
    return SectionChecker.check(load());
  }

  /**
   * @return how many sections were left open (their writer was killed inside them)
   */
  public long openSections() throws SQLException {
    return count(" WHERE exited_at IS NULL", null);
  }

  /**
   * @param time a time on the recording database's clock
   * @return how many sections were entered after it
   */
  public long sectionsEnteredAfter(Instant time) throws SQLException {
    return count(" WHERE entered_at > ?", time);
  }

  private long count(String where, Instant parameter) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + table + where)) {
      if (parameter != null) {
        ps.setTimestamp(1, Timestamp.from(parameter));
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Records the sections of one thread on a connection of its own. Not thread-safe. */
  public static final class Recorder implements AutoCloseable {
    private final Connection connection;
    private final PreparedStatement enter;
    private final PreparedStatement exit;
    private final long pid = ProcessHandle.current().pid();

    private Recorder(Connection connection, String table) throws SQLException {
      this.connection = connection;
      this.enter =
          connection.prepareStatement(
              "INSERT INTO "
                  + table
                  + " (writer, pid, fencing_token) VALUES (?, ?, ?) RETURNING id");
      this.exit =
          connection.prepareStatement(
              "UPDATE " + table + " SET exited_at = clock_timestamp() WHERE id = ?");
    }

    /**
     * Call at the start of a critical section, under the lease; the entry is committed before this
     * returns.
     *
     * @param writer who runs it
     * @param fencingToken the lease's fencing token
     * @return the section's id, for {@link #exit}
     */
    public long enter(String writer, long fencingToken) throws SQLException {
      enter.setString(1, writer);
      enter.setLong(2, pid);
      enter.setLong(3, fencingToken);
      try (ResultSet rs = enter.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }

    /**
     * Call at the end of a critical section, still under the lease.
     *
     * @param id what {@link #enter} returned
     * @throws IllegalStateException when this record has no section of that id
     */
    public void exit(long id) throws SQLException {
      exit.setLong(1, id);
      if (exit.executeUpdate() != 1) {
        throw new IllegalStateException("no section " + id + " to exit");
      }
    }

    /**
     * Records a whole section at once: its entry, then its exit.
     *
     * @param writer who runs it
     * @param fencingToken the lease's fencing token
     */
    public void section(String writer, long fencingToken) throws SQLException {
      exit(enter(writer, fencingToken));
    }

    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }
}
