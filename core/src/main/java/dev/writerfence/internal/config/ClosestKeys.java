package dev.writerfence.internal.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The known keys closest to one that is not known, for the "did you mean" of a refused key. The
 * distance is the optimal string alignment distance: Levenshtein's insertions, deletions and
 * substitutions of one character, plus the swap of two neighbouring characters, each one edit, so
 * that a transposition ({@code retry.max-wiat}) is as close as a typo. Case is ignored, since
 * Spring hands over its relaxed names in lower case. Written out rather than taken from a library:
 * core keeps its dependencies few, and these twenty lines are the whole need.
 */
final class ClosestKeys {
  /** No suggestion is further than this many edits, however long the key. */
  private static final int MAX_EDITS = 3;

  private ClosestKeys() {}

  /**
   * @param key the key as given, without the prefix; never {@code null}
   * @param known the known keys; never {@code null}
   * @return the known keys at the smallest distance from {@code key}, in {@code known}'s order,
   *     when that distance is close enough: at most a third of {@code key}'s length (at least 1, at
   *     most {@value #MAX_EDITS}); otherwise empty
   */
  static List<String> to(String key, List<String> known) {
    String given = key.toLowerCase(Locale.ROOT);
    int limit = Math.min(MAX_EDITS, Math.max(1, given.length() / 3));
    int best = limit + 1;
    List<String> closest = new ArrayList<>();
    for (String candidate : known) {
      int d = distance(given, candidate.toLowerCase(Locale.ROOT));
      if (d > limit) {
        continue;
      }
      if (d < best) {
        best = d;
        closest.clear();
      }
      if (d == best) {
        closest.add(candidate);
      }
    }
    return List.copyOf(closest);
  }

  /**
   * @return the optimal string alignment distance between {@code a} and {@code b}
   */
  static int distance(String a, String b) {
    // d[i][j]: edits that turn the first i characters of a into the first j of b.
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1); // two neighbours swapped
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
