package dev.writerfence.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.writerfence.FencingTokens;
import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.lease.Clocked;
import dev.writerfence.store.lease.PgLeaseStore;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
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
 * order, then lapsed tickets not yet cleared, marked {@code lapsed}. Both are read through the
 * lease store ({@link PgLeaseStore#statusAllClocked()}, {@link PgLeaseStore#queueAllClocked()}),
 * each with the database clock its ages are measured against. With {@code --watch} it prints them
 * again every few seconds ({@link StatusWatch}).
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = {
      "Show every fence: holder label, fencing token and its timeline.counter (1.27: the 27th"
          + " grant on PostgreSQL timeline 1), acquired, age, expires, seconds left, state, waiters; then each fence's queue of waiters in turn order: place, holder"
          + " label, priority, waiting since, waited, lapses in, and the waiter the released"
          + " lease is kept for. Lapsed tickets not yet cleared are listed last, as lapsed."
          + " Every time is the database clock's."
    })
public final class StatusCommand implements Callable<Integer> {
  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  /** How long one statement may take. */
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(10);

  @Spec CommandLine.Model.CommandSpec spec;

  @Mixin DatabaseOptions.RequiredUrl db;

  @Option(names = "--json", description = "print one JSON object instead of the table")
  boolean json;

  @Option(
      names = "--watch",
      arity = "0..1",
      paramLabel = "SECONDS",
      fallbackValue = "2",
      description = {
        "refresh every SECONDS (default 2; 0.1 to 3600) until Ctrl-C. On a terminal each refresh"
            + " replaces the last on a cleared screen; to a file or a pipe the refreshes follow"
            + " each other, each under a heading line (with --json: one JSON object per line). A"
            + " refresh that cannot read the database is reported on stderr and tried again."
      })
  Double watch;

  /** Stops {@code --watch} after this many refreshes; for tests and scripts. */
  @Option(names = "--count", hidden = true, paramLabel = "N", defaultValue = "0")
  long count;

  @Override
  public Integer call() throws Exception {
    db.validate();
    PgLeaseStore store = new PgLeaseStore(db.dataSource(), db.schema(), QUERY_TIMEOUT);
    if (watch == null) {
      if (count != 0) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--count " + count + " is not allowed without --watch");
      }
      print(store, spec.commandLine().getOut());
      return 0;
    }
    StatusWatch watching;
    try {
      watching = new StatusWatch(watch, count, StatusWatch.stdoutIsTerminal(), json);
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    return watching.run(
        spec.commandLine().getOut(), spec.commandLine().getErr(), out -> print(store, out));
  }

  /** One block: the table and the queues, or one JSON object. */
  private void print(PgLeaseStore store, PrintWriter out) throws Exception {
    Snapshot snapshot;
    Optional<List<Waiter>> queue;
    try {
      snapshot = snapshot(store.statusAllClocked());
      queue = store.queueAllClocked().map(StatusCommand::waiters);
    } catch (RuntimeException e) {
      // The store sorts the database's error for a fence; an operator reads the database's own.
      SQLException cause = sqlCause(e);
      if (cause == null) {
        throw e;
      }
      if (isUndefined(cause)) {
        throw new IllegalStateException(notInstalled(db));
      }
      throw new IllegalStateException(
          "could not read " + db.schema() + ".lease_status and " + db.schema() + ".queue_status",
          cause);
    }
    Map<String, List<Waiter>> queues = byFence(queue.orElse(List.of()));
    Map<String, Row> rows = new TreeMap<>();
    snapshot.rows().forEach(r -> rows.put(r.status().fenceName(), r));
    Set<String> fenceNames = new TreeSet<>(rows.keySet());
    fenceNames.addAll(queues.keySet());
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
          f.put("timeline_counter", timelineCounter(s.fencingToken()));
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
                  "timeline.counter",
                  "acquired",
                  "age",
                  "expires",
                  "seconds left",
                  "state",
                  "waiters")
              .alignRight(2, 3, 5, 7, 9);
      for (String name : fenceNames) {
        int waiters = waiting(queues.getOrDefault(name, List.of()));
        Row row = rows.get(name);
        if (row == null) {
          table.row(name, null, null, null, null, null, null, null, "never acquired", waiters);
          continue;
        }
        LeaseStatus s = row.status();
        table.row(
            s.fenceName(),
            s.holderLabel(),
            s.fencingToken(),
            timelineCounter(s.fencingToken()),
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
   * The queue view's rows with their ages on the database clock of the statement that read them.
   *
   * @param read every fence's tickets: by fence name, live ones in turn order, then lapsed ones by
   *     arrival
   * @return the tickets
   */
  private static List<Waiter> waiters(Clocked<List<QueuedWaiter>> read) {
    Instant now = read.databaseTime();
    List<Waiter> rows = new ArrayList<>();
    for (QueuedWaiter w : read.value()) {
      rows.add(
          new Waiter(
              w.fenceName(),
              w.holderLabel(),
              w.priority(),
              w.waitingSince(),
              seconds(w.waitingSince(), now),
              w.lapsesAt(),
              seconds(now, w.lapsesAt()),
              w.isWaiting() ? w.place() : null,
              w.reserved(),
              w.isWaiting() ? "waiting" : "lapsed"));
    }
    return List.copyOf(rows);
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
   * The status view's rows with each lease's age on the database clock of the statement that read
   * them.
   *
   * @param read the rows by fence name
   * @return them with their ages
   */
  private static Snapshot snapshot(Clocked<List<LeaseStatus>> read) {
    Instant now = read.databaseTime();
    List<Row> rows = new ArrayList<>();
    for (LeaseStatus s : read.value()) {
      rows.add(new Row(s, seconds(s.acquiredAt(), now)));
    }
    return new Snapshot(now, List.copyOf(rows));
  }

  /**
   * @return {@code to - from} in seconds, rounded half away from zero to milliseconds, as the
   *     database's {@code round(extract(epoch FROM to - from), 3)} gives it
   */
  static BigDecimal seconds(Instant from, Instant to) {
    Duration d = Duration.between(from, to);
    return BigDecimal.valueOf(d.getSeconds())
        .add(BigDecimal.valueOf(d.getNano(), 9))
        .setScale(3, RoundingMode.HALF_UP);
  }

  /** The database's own error under a store's exception, or {@code null} when there is none. */
  private static SQLException sqlCause(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLException sql) {
        return sql;
      }
    }
    return null;
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

  /**
   * @param fencingToken a lease row's fencing token
   * @return its {@code timeline.counter} ({@link FencingTokens#describe}, ADR 47), such as {@code
   *     1.27} for 1099511627803; {@code null} for a token below 1, which no grant of the contract
   *     mints
   */
  static String timelineCounter(long fencingToken) {
    return fencingToken < 1 ? null : FencingTokens.describe(fencingToken);
  }

  static String time(Instant t) {
    return TIME.format(t.truncatedTo(ChronoUnit.MILLIS));
  }
}
