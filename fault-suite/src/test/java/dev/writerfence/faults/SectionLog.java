package dev.writerfence.faults;

import dev.writerfence.schema.FenceSchema;
import dev.writerfence.testing.CriticalSections;
import dev.writerfence.testing.CriticalSections.Section;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * A record of critical sections that survives the death of the writer inside one: a section is
 * inserted (committed) when it is entered and closed when it is left, both stamped with the
 * recording database's {@code clock_timestamp()}. A writer killed with SIGKILL inside a section
 * leaves it open; the test closes it at a time after the process was seen dead, which can only make
 * the overlap check stricter.
 *
 * <p>The record lives on a database that the fault under test does not touch (the test JVM's
 * embedded PostgreSQL), so a restart or a cut of the fence's database loses no entry. All local
 * servers read the same host clock.
 */
final class SectionLog {
  private final DataSource dataSource;
  private final String table;

  SectionLog(DataSource dataSource, String table) {
    this.dataSource = dataSource;
    this.table = FenceSchema.checkIdentifier("table", table);
  }

  static String freshTable(String prefix) {
    return prefix + "_" + UUID.randomUUID().toString().replace("-", "");
  }

  SectionLog create() throws SQLException {
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

  String table() {
    return table;
  }

  Recorder recorder() throws SQLException {
    return new Recorder(dataSource.getConnection(), table);
  }

  /**
   * @return the database time now on the recording database
   */
  OffsetDateTime now() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT clock_timestamp()")) {
      rs.next();
      return rs.getObject(1, OffsetDateTime.class);
    }
  }

  /**
   * Every section in order of entry, open ones closed at their process's death.
   *
   * @param deathOf per process id, a database time after that process was seen dead
   * @return the sections
   * @throws AssertionError for an open section of a process that was not killed
   */
  List<Section> load(Map<Long, OffsetDateTime> deathOf) throws SQLException {
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
        OffsetDateTime exited = rs.getObject(5, OffsetDateTime.class);
        if (exited == null) {
          exited = deathOf.get(pid);
          if (exited == null) {
            throw new AssertionError(
                "an open section of " + rs.getString(1) + ", a writer that was not killed");
          }
        }
        sections.add(
            new Section(
                rs.getString(1), rs.getLong(3), rs.getObject(4, OffsetDateTime.class), exited));
      }
    }
    return sections;
  }

  /**
   * @return sections left open (their writer was killed inside them)
   */
  long openSections() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT count(*) FROM " + table + " WHERE exited_at IS NULL")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * @param time a database time
   * @return how many sections were entered after it
   */
  long sectionsEnteredAfter(OffsetDateTime time) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM " + table + " WHERE entered_at > ?")) {
      ps.setObject(1, time);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** The overlap and token-order check of {@link CriticalSections#violations}. */
  static List<String> violations(List<Section> sections) {
    return CriticalSections.violations(sections);
  }

  /**
   * @param sections sections in order of entry
   * @param faults database times at which a fault struck
   * @return the longest time from a fault to the entry of the first section after it (zero when
   *     there were no faults)
   * @throws AssertionError when no section followed a fault
   */
  static Duration maxRecovery(List<Section> sections, List<OffsetDateTime> faults) {
    Duration max = Duration.ZERO;
    for (OffsetDateTime fault : faults) {
      OffsetDateTime next =
          sections.stream()
              .map(Section::enteredAt)
              .filter(t -> t.isAfter(fault))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no section after the fault at " + fault));
      Duration recovery = Duration.between(fault, next);
      if (recovery.compareTo(max) > 0) {
        max = recovery;
      }
    }
    return max;
  }

  /** One thread's recorder, on a connection of its own. Not thread-safe. */
  static final class Recorder implements AutoCloseable {
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

    /** Call under the lease, at the start of the section; committed before it returns. */
    long enter(String writer, long fencingToken) throws SQLException {
      enter.setString(1, writer);
      enter.setLong(2, pid);
      enter.setLong(3, fencingToken);
      try (ResultSet rs = enter.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }

    /** Call under the lease, at the end of the section. */
    void exit(long id) throws SQLException {
      exit.setLong(1, id);
      if (exit.executeUpdate() != 1) {
        throw new IllegalStateException("no section " + id);
      }
    }

    @Override
    public void close() throws SQLException {
      connection.close();
    }
  }
}
