package dev.writerfence.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.LeaseStatus;
import dev.writerfence.schema.FenceSchema;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code writer-fence status}: the {@code lease_status} view as a table, and under it each fence's
 * queue of waiters (the {@code queue_status} view of contract version 2): live tickets in turn
 * order, then lapsed tickets not yet cleared, marked {@code lapsed}.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Show every fence: holder label, fencing token, acquired, age, expires, seconds left,"
          + " state, waiters; then each fence's queue of waiters in turn order: place, holder"
          + " label, priority, waiting since, waited, lapses in, and the waiter the released"
          + " lease is kept for. Lapsed tickets not yet cleared are listed last, as lapsed."
          + " Every time is the database clock's."
    })
public final class StatusCommand implements Callable<Integer> {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  @Spec CommandLine.Model.CommandSpec spec;

  @Mixin DatabaseOptions.RequiredUrl db;

  @Option(names = "--json", description = "print one JSON object instead of the table")
  boolean json;

  @Override
  public Integer call() throws Exception {
    db.validate();
    Snapshot snapshot;
    Optional<List<Waiter>> queue;
    try (Connection c = db.dataSource().getConnection()) {
      snapshot = read(c, db.schema());
      queue = readQueue(c, db.schema());
    } catch (SQLException e) {
      if (isUndefined(e)) {
        throw new IllegalStateException(notInstalled(db));
      }
      throw new IllegalStateException(
          "could not read " + db.schema() + ".lease_status and " + db.schema() + ".queue_status",
          e);
    }
    Map<String, List<Waiter>> queues = byFence(queue.orElse(List.of()));
    Map<String, Row> rows = new TreeMap<>();
    snapshot.rows().forEach(r -> rows.put(r.status().fenceName(), r));
    Set<String> fenceNames = new TreeSet<>(rows.keySet());
    fenceNames.addAll(queues.keySet());
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = mapper.createObjectNode();
      root.put("database_time", snapshot.databaseTime().toString());
      root.put("queue_kept", queue.isPresent());
      ArrayNode fences = root.putArray("fences");
      for (String name : fenceNames) {
        ObjectNode f = fences.addObject();
        f.put("fence_name", name);
        Row row = rows.get(name);
        if (row != null) {
          LeaseStatus s = row.status();
          f.put("holder_label", s.holderLabel());
          f.put("fencing_token", s.fencingToken());
          f.put("acquired_at", s.acquiredAt().toString());
          f.put("age_seconds", row.ageSeconds());
          f.put("expires_at", s.expiresAt().toString());
          f.put("seconds_left", s.secondsLeft());
          f.put("state", s.state());
        } else {
          f.put("state", "never acquired");
        }
        List<Waiter> waiters = queues.getOrDefault(name, List.of());
        f.put("waiters", waiting(waiters));
        ArrayNode q = f.putArray("queue");
        for (Waiter w : waiters) {
          ObjectNode t = q.addObject();
          if (w.place() == null) {
            t.putNull("place");
          } else {
            t.put("place", w.place());
          }
          t.put("holder_label", w.holderLabel());
          t.put("priority", w.priority());
          t.put("waiting_since", w.waitingSince().toString());
          t.put("waited_seconds", w.waitedSeconds());
          t.put("lapses_at", w.lapsesAt().toString());
          t.put("lapses_in_seconds", w.lapsesInSeconds());
          t.put("reserved", w.reserved());
          t.put("state", w.state());
        }
      }
      out.println(mapper.writeValueAsString(root));
    } else if (fenceNames.isEmpty()) {
      out.printf("no fence has been acquired yet (schema '%s')%n", db.schema());
      if (queue.isEmpty()) {
        out.println(versionOneNote(db.schema()));
      }
    } else {
      TextTable table =
          new TextTable(
                  "fence name",
                  "holder label",
                  "fencing token",
                  "acquired",
                  "age",
                  "expires",
                  "seconds left",
                  "state",
                  "waiters")
              .alignRight(2, 4, 6, 8);
      for (String name : fenceNames) {
        int waiters = waiting(queues.getOrDefault(name, List.of()));
        Row row = rows.get(name);
        if (row == null) {
          table.row(name, null, null, null, null, null, null, "never acquired", waiters);
          continue;
        }
        LeaseStatus s = row.status();
        table.row(
            s.fenceName(),
            s.holderLabel(),
            s.fencingToken(),
            time(s.acquiredAt()),
            age(row.ageSeconds()),
            time(s.expiresAt()),
            s.secondsLeft().setScale(1, RoundingMode.HALF_UP).toPlainString(),
            s.state(),
            waiters);
      }
      table.print(out);
      out.printf(
          "database time %s; age = database time - acquired (the last acquire when free)%n",
          time(snapshot.databaseTime()));
      if (queue.isEmpty()) {
        out.println(versionOneNote(db.schema()));
      }
      for (Map.Entry<String, List<Waiter>> q : queues.entrySet()) {
        printQueue(out, q.getKey(), q.getValue());
      }
    }
    out.flush();
    return 0;
  }

  /** One fence's queue: a heading, then its tickets in turn order, lapsed ones last. */
  private static void printQueue(PrintWriter out, String fenceName, List<Waiter> waiters) {
    int waiting = waiting(waiters);
    int lapsed = waiters.size() - waiting;
    out.println();
    String keptFor =
        waiters.stream()
            .filter(Waiter::reserved)
            .findFirst()
            .map(w -> "; the released lease is kept for place " + w.place())
            .orElse("");
    out.printf(
        "queue of %s: %d waiting%s%s%n",
        fenceName,
        waiting,
        lapsed == 0 ? "" : ", " + lapsed + " lapsed (not yet cleared)",
        keptFor);
    TextTable table =
        new TextTable(
                "place",
                "holder label",
                "priority",
                "waiting since",
                "waited",
                "lapses in",
                "reserved")
            .alignRight(0, 2, 4, 5);
    for (Waiter w : waiters) {
      table.row(
          w.place() == null ? "-" : w.place(),
          w.holderLabel(),
          w.priority(),
          time(w.waitingSince()),
          age(w.waitedSeconds()),
          w.place() == null ? "lapsed" : age(w.lapsesInSeconds()),
          w.reserved() ? "yes" : null);
    }
    table.print(out);
  }

  /** The note for a schema without the queue (contract version 1). */
  private static String versionOneNote(String schema) {
    return String.format(
        "schema '%s' has no queue of waiters (contract version 1): './writer-fence schema install'"
            + " upgrades it to version 2 in place",
        schema);
  }

  private static int waiting(List<Waiter> waiters) {
    return (int) waiters.stream().filter(w -> w.place() != null).count();
  }

  private static Map<String, List<Waiter>> byFence(List<Waiter> waiters) {
    Map<String, List<Waiter>> byFence = new TreeMap<>();
    for (Waiter w : waiters) {
      byFence.computeIfAbsent(w.fenceName(), n -> new ArrayList<>()).add(w);
    }
    return byFence;
  }

  /**
   * One row of the queue view, with its ages on the database clock.
   *
   * @param fenceName the fence name
   * @param holderLabel the waiter's label, or {@code null}
   * @param priority -100 to 100, higher first
   * @param waitingSince when the ticket was taken
   * @param waitedSeconds database time minus {@code waitingSince}, in seconds (millisecond
   *     precision)
   * @param lapsesAt when the ticket lapses unless its waiter polls again
   * @param lapsesInSeconds {@code lapsesAt} minus database time, in seconds; negative once lapsed
   * @param place 1 for the head of the queue; {@code null} for a lapsed ticket
   * @param reserved whether the released lease is kept for this waiter
   * @param state {@code waiting} or {@code lapsed}
   */
  record Waiter(
      String fenceName,
      String holderLabel,
      int priority,
      Instant waitingSince,
      BigDecimal waitedSeconds,
      Instant lapsesAt,
      BigDecimal lapsesInSeconds,
      Integer place,
      boolean reserved,
      String state) {}

  /**
   * Reads the queue view, every fence's tickets: by fence name, live ones in turn order, then
   * lapsed ones by arrival.
   *
   * @param c a connection of a role that may read the view
   * @param schema the checked schema name
   * @return the tickets; empty when the schema has no queue view (contract version 1)
   * @throws SQLException when the view cannot be read for another reason
   */
  static Optional<List<Waiter>> readQueue(Connection c, String schema) throws SQLException {
    // schema is a checked identifier ([a-z_][a-z0-9_]*), safe to put into the statement
    String sql =
        "SELECT q.fence_name, q.holder_label, q.priority, q.waiting_since, q.lapses_at, q.place,"
            + " q.reserved, q.state,"
            + " round(extract(epoch FROM t.now - q.waiting_since), 3) AS waited_seconds,"
            + " round(extract(epoch FROM q.lapses_at - t.now), 3) AS lapses_in_seconds"
            + " FROM (SELECT clock_timestamp() AS now) t JOIN "
            + schema
            + ".queue_status q ON true ORDER BY q.fence_name, q.place NULLS LAST, q.waiting_since";
    List<Waiter> rows = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setQueryTimeout(10);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(
              new Waiter(
                  rs.getString("fence_name"),
                  rs.getString("holder_label"),
                  rs.getInt("priority"),
                  rs.getObject("waiting_since", OffsetDateTime.class).toInstant(),
                  rs.getBigDecimal("waited_seconds"),
                  rs.getObject("lapses_at", OffsetDateTime.class).toInstant(),
                  rs.getBigDecimal("lapses_in_seconds"),
                  rs.getObject("place", Integer.class),
                  rs.getBoolean("reserved"),
                  rs.getString("state")));
        }
      }
    } catch (SQLException e) {
      if ("42P01".equals(e.getSQLState())) {
        return Optional.empty(); // lease_status was read: the schema is there, at version 1
      }
      throw e;
    }
    return Optional.of(List.copyOf(rows));
  }

  /**
   * One row of the status view with its age.
   *
   * @param status the row
   * @param ageSeconds database time minus {@code acquired_at}, in seconds (millisecond precision)
   */
  record Row(LeaseStatus status, BigDecimal ageSeconds) {}

  /**
   * The status view as read in one statement, all times from the database clock.
   *
   * @param databaseTime the database's {@code clock_timestamp()} when the view was read
   * @param rows its rows, by fence name
   */
  record Snapshot(Instant databaseTime, List<Row> rows) {}

  /**
   * Reads the status view, with each lease's age and the time it was read on the database clock.
   *
   * @param c a connection of a role that may read the view
   * @param schema the checked schema name
   * @return the rows by fence name
   * @throws SQLException when the view cannot be read (42P01 or 3F000 when it does not exist)
   */
  static Snapshot read(Connection c, String schema) throws SQLException {
    // schema is a checked identifier ([a-z_][a-z0-9_]*), safe to put into the statement
    String sql =
        "SELECT s.fence_name, s.holder_label, s.fencing_token, s.acquired_at, s.expires_at,"
            + " s.seconds_left, s.state,"
            + " round(extract(epoch FROM t.now - s.acquired_at), 3) AS age_seconds, t.now"
            + " FROM (SELECT clock_timestamp() AS now) t LEFT JOIN "
            + schema
            + ".lease_status s ON true ORDER BY s.fence_name";
    List<Row> rows = new ArrayList<>();
    Instant now = null;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setQueryTimeout(10);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          now = rs.getObject("now", OffsetDateTime.class).toInstant();
          if (rs.getString("fence_name") == null) {
            continue; // the view is empty
          }
          rows.add(
              new Row(
                  new LeaseStatus(
                      rs.getString("fence_name"),
                      rs.getString("holder_label"),
                      rs.getLong("fencing_token"),
                      rs.getObject("acquired_at", OffsetDateTime.class).toInstant(),
                      rs.getObject("expires_at", OffsetDateTime.class).toInstant(),
                      rs.getBigDecimal("seconds_left"),
                      rs.getString("state")),
                  rs.getBigDecimal("age_seconds")));
        }
      }
    }
    return new Snapshot(now, List.copyOf(rows));
  }

  /**
   * @param seconds an age in seconds
   * @return {@code 12.3s} under a minute, {@code 5m03s} under an hour, {@code 2h01m} under a day,
   *     else {@code 3d04h}
   */
  static String age(BigDecimal seconds) {
    if (seconds.signum() < 0) {
      return "-" + age(seconds.negate());
    }
    if (seconds.compareTo(BigDecimal.valueOf(60)) < 0) {
      return seconds.setScale(1, RoundingMode.DOWN).toPlainString() + "s";
    }
    long s = seconds.longValue();
    if (s < 3600) {
      return String.format("%dm%02ds", s / 60, s % 60);
    }
    if (s < 86_400) {
      return String.format("%dh%02dm", s / 3600, s % 3600 / 60);
    }
    return String.format("%dd%02dh", s / 86_400, s % 86_400 / 3600);
  }

  /**
   * Whether the database said that the status view, or its schema, does not exist: SQLState 42P01
   * (undefined table) or 3F000 (invalid schema name).
   */
  static boolean isUndefined(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql
          && ("42P01".equals(sql.getSQLState()) || "3F000".equals(sql.getSQLState()))) {
        return true;
      }
    }
    return false;
  }

  /** What to do when the SQL contract is not there: install it, with this command's URL. */
  static String notInstalled(DatabaseOptions db) {
    String url = db.jdbcUrl();
    // The URL is shown so that the command can be copied, unless it carries a password.
    String shownUrl = url.toLowerCase(Locale.ROOT).contains("password") ? "URL" : url;
    String schemaOption =
        db.schema().equals(FenceSchema.DEFAULT_SCHEMA) ? "" : " --schema " + db.schema();
    return String.format(
        "the writer-fence schema '%s' is not installed in this database (there is no %s.lease)."
            + "%nInstall it, connected as the role that is to own the lease table (--user,"
            + " --password):"
            + "%n  ./writer-fence schema install --jdbc-url %s%s --grant-to ROLE"
            + "%nwith ROLE the role your writers connect as.",
        db.schema(), db.schema(), shownUrl, schemaOption);
  }

  static String time(Instant t) {
    return TIME.format(t.truncatedTo(ChronoUnit.MILLIS));
  }
}
