package dev.writerfence.cli.audit;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Words for the fence names of one bucket's writers, counted per writer, so that the map of an
 * inconsistent bucket says which writer is the odd one out instead of flagging all alike.
 */
final class FenceNameCount {
  private FenceNameCount() {}

  /**
   * @param names writers per fence name, at least one name
   * @return for example {@code 2 writers hold 'corpus', 1 holds 'other'}: most held first
   */
  static String describe(Map<String, Integer> names) {
    List<String> parts = new ArrayList<>();
    for (Map.Entry<String, Integer> e : byCount(names)) {
      int n = e.getValue();
      String who = parts.isEmpty() ? (n == 1 ? "1 writer" : n + " writers") : Integer.toString(n);
      parts.add(who + (n == 1 ? " holds '" : " hold '") + e.getKey() + "'");
    }
    return String.join(", ", parts);
  }

  /**
   * @param fenceName the name one writer holds, one of {@code names}
   * @param names writers per fence name of its bucket, at least two names
   * @return {@code odd one out} when fewer writers hold its name than hold another, {@code majority
   *     name} when more hold it than any other, else {@code no majority}; then the count
   */
  static String note(String fenceName, Map<String, Integer> names) {
    int mine = names.get(fenceName);
    int most = Collections.max(names.values());
    long atMost = names.values().stream().filter(n -> n == most).count();
    String role =
        mine < most
            ? "odd one out: holds '" + fenceName + "'"
            : atMost == 1 ? "majority name '" + fenceName + "'" : "no majority name";
    return role + "; " + describe(names);
  }

  private static List<Map.Entry<String, Integer>> byCount(Map<String, Integer> names) {
    List<Map.Entry<String, Integer>> entries = new ArrayList<>(names.entrySet());
    entries.sort(
        Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
            .thenComparing(Map.Entry.comparingByKey()));
    return entries;
  }
}
