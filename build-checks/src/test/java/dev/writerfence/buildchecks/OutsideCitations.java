package dev.writerfence.buildchecks;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds text that sends a reader to a document outside the repository: an architecture sketch and a
 * notes file that were never part of it, and the folder beside the checkout that held them. The
 * repository explains itself in docs/architecture.md, docs/cases.md and its ADRs.
 */
final class OutsideCitations {
  /*
   * Written so that this file does not match itself: an escaped dot, a character class or a
   * pattern that cannot match its own backslashes.
   */
  private static final List<Pattern> PATTERNS =
      List.of(
          Pattern.compile("\\bDESIGN\\.md\\b"),
          Pattern.compile("\\bDESIGN\\s*§"),
          Pattern.compile("\\bKNOWN\\.md\\b"),
          Pattern.compile("\\.\\./shared\\b"),
          Pattern.compile("/work/share[d]\\b"));

  private OutsideCitations() {}

  /**
   * @param file the file's path, as the report names it
   * @param text the file's text
   * @return one line per citation found: {@code file:line: the matched text}; empty when none
   */
  static List<String> in(String file, String text) {
    List<String> found = new ArrayList<>();
    String[] lines = text.split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      for (Pattern pattern : PATTERNS) {
        Matcher m = pattern.matcher(lines[i]);
        if (m.find()) {
          found.add(file + ":" + (i + 1) + ": " + m.group());
        }
      }
    }
    return found;
  }
}
