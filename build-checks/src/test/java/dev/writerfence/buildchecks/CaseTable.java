package dev.writerfence.buildchecks;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The acceptance cases of docs/cases.md: one table row per case, {@code | C07 | scenario | expected
 * | tests |}, whose last column names the tests that run it.
 */
final class CaseTable {
  /** A case id where it is used: in a row, a test's name, a class name or a comment. */
  static final Pattern CASE_ID = Pattern.compile("\\bC([0-9]{2})(?![0-9])");

  /**
   * A test method named after a case: {@code C07_expiredLeaseIsTakenOver()}, declared {@code void}.
   */
  static final Pattern CASE_TEST = Pattern.compile("\\bvoid\\s+(C[0-9]{2}_\\w+)\\s*\\(");

  private static final Pattern ROW = Pattern.compile("^\\|\\s*(C[0-9]{2})\\s*\\|(.*)$");
  private static final Pattern TEST_NAME = Pattern.compile("\\bC[0-9]{2}_\\w+");

  private final Map<String, String> rows;

  private CaseTable(Map<String, String> rows) {
    this.rows = rows;
  }

  /**
   * @param markdown the text of docs/cases.md
   * @return its case rows, in the order of the file
   * @throws IllegalArgumentException when a case id has two rows, naming it
   */
  static CaseTable parse(String markdown) {
    Map<String, String> rows = new LinkedHashMap<>();
    for (String line : markdown.split("\n")) {
      Matcher m = ROW.matcher(line.strip());
      if (m.matches() && rows.put(m.group(1), m.group(2)) != null) {
        throw new IllegalArgumentException("case " + m.group(1) + " has two rows in the table");
      }
    }
    return new CaseTable(rows);
  }

  /**
   * @return the case ids, in the order of the file
   */
  Set<String> ids() {
    return rows.keySet();
  }

  /**
   * @return whether the row of {@code id} names the test method {@code method}
   */
  boolean names(String id, String method) {
    String row = rows.get(id);
    return row != null && Pattern.compile("\\b" + method + "\\b").matcher(row).find();
  }

  /**
   * @return every test method name ({@code Cnn_...}) that some row names
   */
  Set<String> testsNamed() {
    Set<String> names = new TreeSet<>();
    for (String row : rows.values()) {
      TEST_NAME.matcher(row).results().forEach(r -> names.add(r.group()));
    }
    return names;
  }
}
