package dev.writerfence.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain text table: a header, rows, columns padded to their widest cell. */
public final class TextTable {
  private final List<String[]> rows = new ArrayList<>();
  private final boolean[] rightAligned;

  /**
   * @param header the column names
   */
  public TextTable(String... header) {
    rows.add(header.clone());
    rightAligned = new boolean[header.length];
  }

  /**
   * @param columns the columns (from 0) whose cells are right-aligned, such as numbers
   * @return this table
   */
  public TextTable alignRight(int... columns) {
    for (int c : columns) {
      rightAligned[c] = true;
    }
    return this;
  }

  /**
   * @param cells one cell per column; {@code null} prints as empty
   * @return this table
   */
  public TextTable row(Object... cells) {
    if (cells.length != rightAligned.length) {
      throw new IllegalArgumentException(
          "a row of " + cells.length + " cells in a table of " + rightAligned.length + " columns");
    }
    rows.add(Arrays.stream(cells).map(c -> c == null ? "" : c.toString()).toArray(String[]::new));
    return this;
  }

  /**
   * @return the number of rows below the header
   */
  public int size() {
    return rows.size() - 1;
  }

  /**
   * @param out where to print the header and the rows, one line each
   */
  public void print(PrintWriter out) {
    int[] width = new int[rightAligned.length];
    for (String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        if (c > 0) {
          line.append("  ");
        }
        String pad = " ".repeat(width[c] - row[c].length());
        line.append(rightAligned[c] ? pad + row[c] : row[c] + pad);
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
