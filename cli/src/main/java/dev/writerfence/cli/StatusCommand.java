package dev.writerfence.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.store.LeaseStatus;
import dev.writerfence.store.pg.PgLeaseStore;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
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

  @Mixin DatabaseOptions db;

  @Option(names = "--json", description = "print one JSON object instead of the table")
  boolean json;

  @Override
  public Integer call() throws Exception {
    db.validate(true);
    PgLeaseStore store = new PgLeaseStore(db.dataSource(), db.schema(), Duration.ofSeconds(10));
    List<LeaseStatus> rows;
    try {
      rows = store.statusAll();
    } catch (WriterFenceUnavailableException e) {
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

  private static String time(Instant t) {
    return TIME.format(t.truncatedTo(ChronoUnit.MILLIS));
  }
}
