package dev.writerfence.cli.audit;

import dev.writerfence.cli.TextTable;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Prints unfenced writes as a table: one row per call site, with its sample of keys ({@code +more}
 * when it wrote more than the sample holds) and the wrapper library's frame it called ({@code
 * via}).
 */
public final class UnfencedWriteTable {
  private static final List<String> COLUMNS =
      List.of("client", "operation", "bucket", "key/path", "call site", "via", "thread", "count");

  private UnfencedWriteTable() {}

  /**
   * Prints {@code none} when there are no rows, else a header and one line per row, with a {@code
   * refused} column only when enforce mode refused some write.
   *
   * @param out where to print
   * @param writes the rows
   */
  public static void print(PrintWriter out, List<UnfencedWriteRow> writes) {
    if (writes.isEmpty()) {
      out.println("none");
      return;
    }
    boolean refusals = writes.stream().anyMatch(w -> w.refused() > 0);
    List<String> header = new ArrayList<>(COLUMNS);
    if (refusals) {
      header.add("refused");
    }
    TextTable table = new TextTable(header.toArray(String[]::new)).alignRight(7);
    if (refusals) {
      table.alignRight(8);
    }
    for (UnfencedWriteRow w : writes) {
      List<Object> cells = new ArrayList<>();
      cells.addAll(
          Arrays.asList(
              w.client(),
              w.operation(),
              dash(w.bucket()),
              keys(w),
              w.callSite(),
              dash(w.libraryCall()),
              w.thread(),
              w.count()));
      if (refusals) {
        cells.add(w.refused());
      }
      table.row(cells.toArray());
    }
    table.print(out);
  }

  /** The sample of keys, or the one key of a report of an older agent. */
  private static String keys(UnfencedWriteRow w) {
    if (w.keys().isEmpty()) {
      return dash(w.key());
    }
    return keySample(w.keys(), w.moreKeys());
  }

  /**
   * @param keys a row's sample of keys
   * @param more whether it wrote more distinct keys than the sample holds
   * @return the sample as the table and the writer map print it, {@code +more} last when cut
   */
  static String keySample(List<String> keys, boolean more) {
    return String.join(", ", keys) + (more ? ", +more" : "");
  }

  private static String dash(String value) {
    return value == null ? "-" : value;
  }
}
