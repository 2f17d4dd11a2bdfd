package dev.writerfence;

import java.time.Duration;

/**
 * The input rules of the SQL contract, checked in Java before anything reaches the database. The
 * same rules are checked again by {@code writer_fence.check_args} in SQL (V1__writer_fence.sql).
 */
public final class FenceArguments {
  /** Longest fence name and holder label, in characters. */
  public static final int MAX_NAME_LENGTH = 200;

  /** Shortest TTL, in seconds. */
  public static final long MIN_TTL_SECONDS = 1;

  /** Longest TTL, in seconds (one day). */
  public static final long MAX_TTL_SECONDS = 86_400;

  private FenceArguments() {}

  /**
   * Checks a fence name: 1 to 200 characters, not blank, no control characters (U+0000 to U+001F,
   * U+007F to U+009F).
   *
   * @param fenceName the name to check
   * @return the same name
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String fenceName(String fenceName) {
    if (fenceName == null
        || fenceName.isEmpty()
        || fenceName.length() > MAX_NAME_LENGTH
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
   * Checks a holder label: {@code null} or up to 200 characters with no control characters.
   *
   * @param holderLabel the label to check, may be {@code null}
   * @return the same label
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String holderLabel(String holderLabel) {
    if (holderLabel != null
        && (holderLabel.length() > MAX_NAME_LENGTH || hasControlCharacter(holderLabel))) {
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
    int shown = Math.min(s.length(), 60);
    for (int i = 0; i < shown; i++) {
      char c = s.charAt(i);
      if (Character.isISOControl(c)) {
        out.append(String.format("\\u%04X", (int) c));
      } else {
        out.append(c);
      }
    }
    out.append('\'');
    if (s.length() > shown) {
      out.append("... (").append(s.length()).append(" characters)");
    }
    return out.toString();
  }
}
