package dev.writerfence.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.LeaseStatus;
import dev.writerfence.store.pg.PgLeaseStore;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
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
    description = "Show every fence: holder label, fencing token, acquired, expires, state.")
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
    PgLeaseStore store = new PgLeaseStore(db.dataSource(), db.schema(), Duration.ofSeconds(10));
    List<LeaseStatus> rows;
    try {
      rows = store.statusAll();
    } catch (WriterFenceUnavailableException e) {
      if (isUndefined(e)) {
        throw new IllegalStateException(notInstalled());
      }
      throw new IllegalStateException(
          "could not read " + db.schema() + ".lease_status",
          e.getCause() != null ? e.getCause() : e);
    }
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode root = mapper.createObjectNode();
      ArrayNode fences = root.putArray("fences");
      for (LeaseStatus s : rows) {
        ObjectNode f = fences.addObject();
        f.put("fence_name", s.fenceName());
        f.put("holder_label", s.holderLabel());
        f.put("fencing_token", s.fencingToken());
        f.put("acquired_at", s.acquiredAt().toString());
        f.put("expires_at", s.expiresAt().toString());
        f.put("seconds_left", s.secondsLeft());
        f.put("state", s.state());
      }
      out.println(mapper.writeValueAsString(root));
    } else if (rows.isEmpty()) {
      out.printf("no fence has been acquired yet (schema '%s')%n", db.schema());
    } else {
      TextTable table =
          new TextTable(
                  "fence name",
                  "holder label",
                  "fencing token",
                  "acquired",
                  "expires",
                  "seconds left",
                  "state")
              .alignRight(2, 5);
      for (LeaseStatus s : rows) {
        table.row(
            s.fenceName(),
            s.holderLabel(),
            s.fencingToken(),
            time(s.acquiredAt()),
            time(s.expiresAt()),
            s.secondsLeft().setScale(1, java.math.RoundingMode.HALF_UP).toPlainString(),
            s.state());
      }
      table.print(out);
    }
    out.flush();
    return 0;
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
  private String notInstalled() {
    String url = db.jdbcUrl();
    // The URL is shown so that the command can be copied, unless it carries a password.
    String shownUrl = url.toLowerCase(Locale.ROOT).contains("password") ? "URL" : url;
    String schemaOption =
        db.schema().equals(FenceSchema.DEFAULT_SCHEMA) ? "" : " --schema " + db.schema();
    return String.format(
        "the writer-fence schema '%s' is not installed in this database (there is no %s.lease_status)."
            + "%nInstall it, connected as the role that is to own the lease table (--user,"
            + " --password):"
            + "%n  ./writer-fence schema install --jdbc-url %s%s --grant-to ROLE"
            + "%nwith ROLE the role your writers connect as.",
        db.schema(), db.schema(), shownUrl, schemaOption);
  }

  private static String time(Instant t) {
    return TIME.format(t.truncatedTo(ChronoUnit.MILLIS));
  }
}
