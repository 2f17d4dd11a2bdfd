package dev.writerfence.cli.audit;

import dev.writerfence.cli.TextTable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The writer acquisition map of one audited run: per bucket (or audited directory), every writer
 * the agent saw write there (its application call site), the fence name and holder label it wrote
 * under, who took that hold (the fenced method, or the Java API's caller), and its status:
 *
 * <ul>
 *   <li>{@code fenced}: it held the fence, and every fenced writer of the bucket used the same
 *       name;
 *   <li>{@code unfenced}: it held no fence;
 *   <li>{@code inconsistent}: it held a fence, but writers of the same bucket held another name:
 *       two fence names on one bucket exclude nobody.
 * </ul>
 *
 * <p>Made from the agent's report with {@code audit.map}; a writer is one call site and hold, so
 * one method writing under two names shows twice, and so does one call site reached from two
 * methods that took the fence.
 */
public final class WriterMap {
  /** A writer's status in the map. */
  public enum Status {
    FENCED,
    UNFENCED,
    INCONSISTENT;

    /** As printed and as {@code --fail-on} names it. */
    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * One writer of one bucket.
   *
   * @param bucket the bucket or audited directory, {@code -} when unknown
   * @param client the storage client id
   * @param callSite the application call site
   * @param libraryCall the wrapper library's frame it called, {@code null} when it called the
   *     client
   * @param operations the operations it made there, for example {@code putObject}
   * @param fenceName the fence name it held, {@code null} when unfenced
   * @param holderLabel the holder label of that hold, {@code null} when none
   * @param count how many writes
   * @param keys a sample of the keys it wrote
   * @param moreKeys whether it wrote more distinct keys than a report's sample holds
   * @param status its status
   * @param note for an inconsistent writer, how its fence name stands among the bucket's: the odd
   *     one out, the majority name, or no majority; {@code null} for the others
   * @param fencedBy who took the hold it wrote under, {@code null} when unfenced or unknown
   */
  public record Writer(
      String bucket,
      String client,
      String callSite,
      String libraryCall,
      List<String> operations,
      String fenceName,
      String holderLabel,
      long count,
      List<String> keys,
      boolean moreKeys,
      Status status,
      String note,
      String fencedBy) {}

  private final List<Writer> writers;

  private WriterMap(List<Writer> writers) {
    this.writers = writers;
  }

  /**
   * @param report a report; its fenced rows exist only with {@code audit.map}
   * @return the map of its writes
   */
  public static WriterMap of(AuditReportFile report) {
    return of(List.of(report));
  }

  /**
   * The map of several processes that write the same buckets, each with its own report: a bucket's
   * writers from every report are judged together, so two processes holding different fence names
   * on one bucket are inconsistent. Rows of one call site and hold in several reports are one
   * writer; the holder label, which names the process ({@code label@host:pid}), keeps writers of
   * different processes apart.
   *
   * @param reports the reports, each written with {@code audit.map}; may be empty
   * @return the map of all their writes
   */
  public static WriterMap of(List<AuditReportFile> reports) {
    // Rows per bucket, then per writer (client, call site, fence name, holder label, taker).
    Map<String, Map<List<String>, List<Object>>> byBucket = new TreeMap<>();
    Map<String, String> libraryCalls = new HashMap<>();
    for (AuditReportFile report : reports) {
      for (FencedWriteRow r : report.fenced()) {
        add(
            byBucket,
            r.bucket(),
            r.client(),
            r.callSite(),
            r.fenceName(),
            r.holderLabel(),
            r.fencedBy(),
            r);
        libraryCalls.putIfAbsent(r.callSite(), r.libraryCall());
      }
      for (UnfencedWriteRow r : report.writes()) {
        add(byBucket, r.bucket(), r.client(), r.callSite(), null, null, null, r);
        libraryCalls.putIfAbsent(r.callSite(), r.libraryCall());
      }
    }
    List<Writer> writers = new ArrayList<>();
    byBucket.forEach(
        (bucket, rows) -> {
          Map<String, Integer> names = new TreeMap<>();
          rows.keySet().stream()
              .map(k -> k.get(2))
              .filter(Objects::nonNull)
              .forEach(name -> names.merge(name, 1, Integer::sum));
          rows.forEach(
              (k, group) ->
                  writers.add(writer(bucket, k, group, names, libraryCalls.get(k.get(1)))));
        });
    return new WriterMap(List.copyOf(writers));
  }

  private static void add(
      Map<String, Map<List<String>, List<Object>>> byBucket,
      String bucket,
      String client,
      String callSite,
      String fenceName,
      String holderLabel,
      String fencedBy,
      Object row) {
    List<String> writer = new ArrayList<>();
    writer.add(client);
    writer.add(callSite);
    writer.add(fenceName);
    writer.add(holderLabel);
    writer.add(fencedBy);
    byBucket
        .computeIfAbsent(bucket == null ? "-" : bucket, b -> new TreeMap<>(WriterMap::compare))
        .computeIfAbsent(writer, w -> new ArrayList<>())
        .add(row);
  }

  private static int compare(List<String> a, List<String> b) {
    for (int i = 0; i < a.size(); i++) {
      int c = Objects.toString(a.get(i), "").compareTo(Objects.toString(b.get(i), ""));
      if (c != 0) {
        return c;
      }
    }
    return 0;
  }

  private static Writer writer(
      String bucket,
      List<String> key,
      List<Object> rows,
      Map<String, Integer> names,
      String libraryCall) {
    List<String> operations = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    long count = 0;
    boolean more = false;
    for (Object row : rows) {
      String operation;
      List<String> rowKeys;
      if (row instanceof FencedWriteRow f) {
        operation = f.operation();
        rowKeys = f.keys();
        count += f.count();
        more |= f.moreKeys();
      } else {
        UnfencedWriteRow u = (UnfencedWriteRow) row;
        operation = u.operation();
        rowKeys = u.keys();
        count += u.count();
        more |= u.moreKeys();
      }
      if (!operations.contains(operation)) {
        operations.add(operation);
      }
      for (String k : rowKeys) {
        if (!keys.contains(k)) {
          keys.add(k);
        }
      }
    }
    String fenceName = key.get(2);
    Status status =
        fenceName == null
            ? Status.UNFENCED
            : names.size() > 1 ? Status.INCONSISTENT : Status.FENCED;
    return new Writer(
        bucket,
        key.get(0),
        key.get(1),
        libraryCall,
        List.copyOf(operations),
        fenceName,
        key.get(3),
        count,
        List.copyOf(keys),
        more,
        status,
        status == Status.INCONSISTENT ? FenceNameCount.note(fenceName, names) : null,
        key.get(4));
  }

  /**
   * @return every writer, by bucket, then client, call site, fence name, holder label and taker
   */
  public List<Writer> writers() {
    return writers;
  }

  /**
   * @param bucket a bucket or audited directory, as the writers name it
   * @return the writers of that bucket alone, in this map's order; empty when none wrote there
   */
  public List<Writer> writersOf(String bucket) {
    return writers.stream().filter(w -> w.bucket().equals(bucket)).toList();
  }

  /**
   * @param bucket a bucket or audited directory
   * @return the map of that bucket alone: its writers, with the status they have here
   */
  public WriterMap only(String bucket) {
    return new WriterMap(writersOf(bucket));
  }

  /**
   * @param status a status
   * @return whether some writer has it
   */
  public boolean has(Status status) {
    return writers.stream().anyMatch(w -> w.status() == status);
  }

  /**
   * Prints one block per bucket: a line naming it and its verdict, then one table row per writer.
   *
   * @param out where to print
   */
  public void print(PrintWriter out) {
    if (writers.isEmpty()) {
      out.println("writer map: no write seen");
      return;
    }
    out.println("writer map:");
    Map<String, List<Writer>> byBucket = new TreeMap<>();
    for (Writer w : writers) {
      byBucket.computeIfAbsent(w.bucket(), b -> new ArrayList<>()).add(w);
    }
    byBucket.forEach(
        (bucket, list) -> {
          out.println();
          out.println("bucket " + bucket + ": " + verdict(list));
          TextTable table =
              new TextTable(COLUMNS.toArray(String[]::new)).alignRight(COLUMNS.indexOf("writes"));
          for (Writer w : list) {
            table.row(cells(w).toArray());
          }
          table.print(out);
        });
  }

  /** The columns of a writer's row, as the map prints them; {@link #cells} fills them. */
  static final List<String> COLUMNS =
      List.of(
          "status",
          "fence",
          "holder",
          "client",
          "call site",
          "fenced by",
          "via",
          "operations",
          "writes",
          "keys",
          "note");

  /**
   * @param w a writer
   * @return its row, one cell per {@link #COLUMNS} entry, {@code -} for what it has not
   */
  static List<String> cells(Writer w) {
    return List.of(
        w.status().label(),
        dash(w.fenceName()),
        dash(w.holderLabel()),
        w.client(),
        w.callSite(),
        dash(w.fencedBy()),
        dash(w.libraryCall()),
        String.join(",", w.operations()),
        Long.toString(w.count()),
        UnfencedWriteTable.keySample(w.keys(), w.moreKeys()),
        dash(w.note()));
  }

  private static String dash(String value) {
    return value == null ? "-" : value;
  }

  private static String verdict(List<Writer> writers) {
    Map<String, Integer> names = new TreeMap<>();
    long unfenced = 0;
    for (Writer w : writers) {
      if (w.fenceName() == null) {
        unfenced++;
      } else {
        names.merge(w.fenceName(), 1, Integer::sum);
      }
    }
    List<String> problems = new ArrayList<>();
    if (names.size() > 1) {
      problems.add(
          "INCONSISTENT: writers hold "
              + names.size()
              + " fence names ("
              + FenceNameCount.describe(names)
              + "), which exclude nobody from each other");
    }
    if (unfenced > 0) {
      problems.add(
          "UNFENCED: "
              + unfenced
              + (unfenced == 1 ? " writer holds" : " writers hold")
              + " no fence");
    }
    return problems.isEmpty()
        ? "fenced: every writer holds fence '" + names.keySet().iterator().next() + "'"
        : String.join("; ", problems);
  }
}
