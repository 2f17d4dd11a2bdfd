package dev.writerfence.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.LeaseStatus;
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
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code writer-fence status}: the {@code lease_status} view as a table. */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description =
        "Show every fence: holder label, fencing token, acquired, age, expires, seconds left,"
            + " state. Every time is the database clock's.")
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
    try (Connection c = db.dataSource().getConnection()) {
      snapshot = read(c, db.schema());
    } catch (SQLException e) {
      if (isUndefined(e)) {
        throw new IllegalStateException(notInstalled(db));
      }
      throw new IllegalStateException("could not read " + db.schema() + ".lease_status", e);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = mapper.createObjectNode();
      root.put("database_time", snapshot.databaseTime().toString());
      ArrayNode fences = root.putArray("fences");
      for (Row r : snapshot.rows()) {
        LeaseStatus s = r.status();
        ObjectNode f = fences.addObject();
        f.put("fence_name", s.fenceName());
        f.put("holder_label", s.holderLabel());
        f.put("fencing_token", s.fencingToken());
        f.put("acquired_at", s.acquiredAt().toString());
        f.put("age_seconds", r.ageSeconds());
        f.put("expires_at", s.expiresAt().toString());
        f.put("seconds_left", s.secondsLeft());
        f.put("state", s.state());
      }
      out.println(mapper.writeValueAsString(root));
    } else if (snapshot.rows().isEmpty()) {
      out.printf("no fence has been acquired yet (schema '%s')%n", db.schema());
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
                  "state")
              .alignRight(2, 4, 6);
      for (Row r : snapshot.rows()) {
        LeaseStatus s = r.status();
        table.row(
            s.fenceName(),
            s.holderLabel(),
            s.fencingToken(),
            time(s.acquiredAt()),
            age(r.ageSeconds()),
            time(s.expiresAt()),
            s.secondsLeft().setScale(1, RoundingMode.HALF_UP).toPlainString(),
            s.state());
      }
      table.print(out);
      out.printf(
          "database time %s; age = database time - acquired (the last acquire when free)%n",
          time(snapshot.databaseTime()));
    }
    out.flush();
    return 0;
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
