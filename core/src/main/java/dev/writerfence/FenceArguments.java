package dev.writerfence;

import java.time.Duration;

/**
 * The input rules of the SQL contract, checked in Java before anything reaches the database. The
 * same rules are checked again by {@code writer_fence.check_args} in SQL (V1__writer_fence.sql),
 * and both accept exactly the same values: lengths count characters as PostgreSQL's {@code
 * char_length} does (Unicode code points, so a character outside the BMP counts once), and blank
 * means made only of what {@link Character#isWhitespace(int)} calls white space.
 */
public final class FenceArguments {
  /** Longest fence name and holder label, in characters (Unicode code points). */
  public static final int MAX_NAME_LENGTH = 200;

  /** Shortest TTL, in seconds. */
  public static final long MIN_TTL_SECONDS = 1;

  /** Longest TTL, in seconds (one day). */
  public static final long MAX_TTL_SECONDS = 86_400;

  private FenceArguments() {}

  /**
   * Checks a fence name: 1 to 200 characters (code points), not blank, no control characters
   * (U+0000 to U+001F, U+007F to U+009F).
   *
   * @param fenceName the name to check
   * @return the same name
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String fenceName(String fenceName) {
    if (fenceName == null
        || fenceName.isEmpty()
        || length(fenceName) > MAX_NAME_LENGTH
        || fenceName.isBlank()
        || hasControlCharacter(fenceName)) {
      throw new IllegalArgumentException(
          "writer-fence: fence name "
              + quote(fenceName)
              + " is not allowed: 1 to 200 characters, not blank, no control characters");
    }
    return fenceName;
  }

  /**
   * Checks a holder label: {@code null} or up to 200 characters (code points) with no control
   * characters.
   *
   * @param holderLabel the label to check, may be {@code null}
   * @return the same label
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String holderLabel(String holderLabel) {
    if (holderLabel != null
        && (length(holderLabel) > MAX_NAME_LENGTH || hasControlCharacter(holderLabel))) {
      throw new IllegalArgumentException(
          "writer-fence: holder label "
              + quote(holderLabel)
              + " is not allowed: up to 200 characters, no control characters");
    }
    return holderLabel;
  }

  /**
   * Checks a TTL: whole seconds from 1 to 86400.
   *
   * @param ttl the TTL to check
   * @return the TTL in seconds
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static int ttlSeconds(Duration ttl) {
    if (ttl == null
        || ttl.getNano() != 0
        || ttl.getSeconds() < MIN_TTL_SECONDS
        || ttl.getSeconds() > MAX_TTL_SECONDS) {
      throw new IllegalArgumentException(
          "writer-fence: TTL "
              + (ttl == null ? "null" : ttl.toString())
              + " is not allowed: whole seconds from 1 to 86400");
    }
    return (int) ttl.getSeconds();
  }

  private static int length(String s) {
    return s.codePointCount(0, s.length());
  }

  private static boolean hasControlCharacter(String s) {
    for (int i = 0; i < s.length(); i++) {
      if (Character.isISOControl(s.charAt(i))) {
        return true;
      }
    }
    return false;
  }

  private static String quote(String s) {
    if (s == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder("'");
    int length = length(s);
    int shown = Math.min(length, 60);
    s.codePoints()
        .limit(shown)
        .forEach(
            c -> {
              if (Character.isISOControl(c)) {
                out.append(String.format("\\u%04X", c));
              } else {
                out.appendCodePoint(c);
              }
            });
    out.append('\'');
    if (length > shown) {
      out.append("... (").append(length).append(" characters)");
    }
    return out.toString();
  }
}
