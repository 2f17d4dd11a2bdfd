package dev.writerfence.internal;

import java.time.Duration;

/**
 * The input rules of the SQL contract, checked in Java before anything reaches the database. The
 * same rules are checked again by {@code writer_fence.check_args} in SQL (V1__writer_fence.sql; a
 * TTL in milliseconds by {@code check_ttl_ms}, V4__millisecond_ttls.sql), and both accept exactly
 * the same values:
 *
 * <ul>
 *   <li>Lengths count characters as PostgreSQL's {@code char_length} does in a UTF8 database:
 *       Unicode code points, so a character outside the BMP counts once.
 *   <li>Control characters are U+0000 to U+001F and U+007F to U+009F (Unicode category Cc).
 *   <li>Format characters are one fixed list of code-point ranges, Unicode category Cf as of
 *       Unicode 16 (invisible characters such as U+200B ZERO WIDTH SPACE, U+202E RIGHT-TO-LEFT
 *       OVERRIDE, U+FEFF, tag characters): U+00AD, U+0600 to U+0605, U+061C, U+06DD, U+070F, U+0890
 *       to U+0891, U+08E2, U+180E, U+200B to U+200F, U+202A to U+202E, U+2060 to U+2064, U+2066 to
 *       U+206F, U+FEFF, U+FFF9 to U+FFFB, U+110BD, U+110CD, U+13430 to U+1343F, U+1BCA0 to U+1BCA3,
 *       U+1D173 to U+1D17A, U+E0001, U+E0020 to U+E007F. The list is fixed so that the rule does
 *       not depend on the Unicode version of the JVM or the database.
 *   <li>White space is what {@link Character#isWhitespace(int)} calls white space in Java 17, the
 *       control characters aside (they are refused anyway): U+0020, U+1680, U+2000 to U+2006,
 *       U+2008 to U+200A, U+2028, U+2029, U+205F, U+3000. No-break spaces (U+00A0, U+2007, U+202F)
 *       are not white space here.
 *   <li>An unpaired surrogate is refused: it has no UTF-8 form, and the driver would send it as
 *       {@code ?}, making two different Java names one fence. (SQL never sees one, so it has no
 *       such check.)
 * </ul>
 */
public final class FenceArguments {
  /** The shortest renewal interval allowed: 100 milliseconds. */
  public static final Duration MIN_RENEW_INTERVAL = Duration.ofMillis(100);

  /** Longest fence name and holder label, in characters (Unicode code points). */
  public static final int MAX_NAME_LENGTH = 200;

  /** Shortest TTL, in seconds. */
  public static final long MIN_TTL_SECONDS = 1;

  /** Longest TTL, in seconds (one day). */
  public static final long MAX_TTL_SECONDS = 86_400;

  /** Shortest TTL a lease store takes, in milliseconds (contract version 4). */
  public static final long MIN_TTL_MILLIS = 1;

  /** Longest TTL a lease store takes, in milliseconds (one day). */
  public static final long MAX_TTL_MILLIS = MAX_TTL_SECONDS * 1000;

  /** Lowest and highest priority of a waiter's ticket: higher is served first. */
  public static final int MIN_PRIORITY = -100;

  /** Highest priority of a waiter's ticket. */
  public static final int MAX_PRIORITY = 100;

  /** Longest lapse time of a waiter's ticket, in seconds (the shortest is 1). */
  public static final long MAX_LAPSE_SECONDS = 60;

  /** Format characters (Unicode 16 category Cf), as inclusive code-point ranges; as in SQL. */
  private static final int[][] FORMAT_CHARACTERS = {
    {0x00AD, 0x00AD},
    {0x0600, 0x0605},
    {0x061C, 0x061C},
    {0x06DD, 0x06DD},
    {0x070F, 0x070F},
    {0x0890, 0x0891},
    {0x08E2, 0x08E2},
    {0x180E, 0x180E},
    {0x200B, 0x200F},
    {0x202A, 0x202E},
    {0x2060, 0x2064},
    {0x2066, 0x206F},
    {0xFEFF, 0xFEFF},
    {0xFFF9, 0xFFFB},
    {0x110BD, 0x110BD},
    {0x110CD, 0x110CD},
    {0x13430, 0x1343F},
    {0x1BCA0, 0x1BCA3},
    {0x1D173, 0x1D17A},
    {0xE0001, 0xE0001},
    {0xE0020, 0xE007F}
  };

  /** White space, control characters aside, as inclusive code-point ranges; as in SQL. */
  private static final int[][] WHITE_SPACE = {
    {0x0020, 0x0020},
    {0x1680, 0x1680},
    {0x2000, 0x2006},
    {0x2008, 0x200A},
    {0x2028, 0x2029},
    {0x205F, 0x205F},
    {0x3000, 0x3000}
  };

  private static final String NAME_RULE =
      "1 to 200 characters, no control or format characters, no leading or trailing white space";
  private static final String LABEL_RULE = "up to 200 characters, no control or format characters";
  private static final String KEY_TEXT_RULE =
      "1 to 1000 characters, no control or format characters";

  /** Longest advisory key text, in characters (Unicode code points). */
  public static final int MAX_KEY_TEXT_LENGTH = 1000;

  private FenceArguments() {}

  /**
   * Checks a fence name: 1 to 200 characters (code points), no control characters, no format
   * characters, no unpaired surrogates, and no white space at either end (so never blank). The
   * character sets are those of the class description.
   *
   * @param fenceName the name to check
   * @return the same name
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String fenceName(String fenceName) {
    if (fenceName == null
        || fenceName.isEmpty()
        || length(fenceName) > MAX_NAME_LENGTH
        || hasForbiddenCharacter(fenceName)
        || isWhiteSpace(fenceName.codePointAt(0))
        || isWhiteSpace(fenceName.codePointBefore(fenceName.length()))) {
      throw new IllegalArgumentException(
          "writer-fence: fence name " + quote(fenceName) + " is not allowed: " + NAME_RULE);
    }
    return fenceName;
  }

  /**
   * Checks a holder label: {@code null}, or up to 200 characters (code points) with no control
   * characters, no format characters and no unpaired surrogates. White space is allowed anywhere.
   *
   * @param holderLabel the label to check, may be {@code null}
   * @return the same label
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String holderLabel(String holderLabel) {
    if (holderLabel != null
        && (length(holderLabel) > MAX_NAME_LENGTH || hasForbiddenCharacter(holderLabel))) {
      throw new IllegalArgumentException(
          "writer-fence: holder label " + quote(holderLabel) + " is not allowed: " + LABEL_RULE);
    }
    return holderLabel;
  }

  /**
   * Checks an advisory key text, the text whose SHA-256 names a fence's advisory lock ({@code
   * AdvisoryKeys.keyOfText}): 1 to 1000 characters (code points), no control characters, no format
   * characters, no unpaired surrogates. White space is allowed anywhere: the text is what another
   * language's writer hashes, byte for byte.
   *
   * @param keyText the text to check
   * @return the same text
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static String advisoryKeyText(String keyText) {
    if (keyText == null
        || keyText.isEmpty()
        || length(keyText) > MAX_KEY_TEXT_LENGTH
        || hasForbiddenCharacter(keyText)) {
      throw new IllegalArgumentException(
          "writer-fence: advisory key text "
              + quote(keyText)
              + " is not allowed: "
              + KEY_TEXT_RULE);
    }
    return keyText;
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

  /**
   * Checks a TTL as a lease store takes it: whole milliseconds from 1 ms to 86400000 ms (one day),
   * as {@code check_ttl_ms} does in SQL. A fence's own TTL setting is whole seconds ({@link
   * #ttlSeconds}); a store's callers that need less (the ShedLock provider's {@code lockAtMostFor}
   * and {@code lockAtLeastFor}) pass milliseconds.
   *
   * @param ttl the TTL to check
   * @return the TTL in milliseconds
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static long ttlMillis(Duration ttl) {
    if (ttl == null
        || ttl.getNano() % 1_000_000 != 0
        || ttl.compareTo(Duration.ofMillis(MIN_TTL_MILLIS)) < 0
        || ttl.compareTo(Duration.ofMillis(MAX_TTL_MILLIS)) > 0) {
      throw new IllegalArgumentException(
          "writer-fence: TTL "
              + (ttl == null ? "null" : ttl.toString())
              + " is not allowed: whole milliseconds from 1 ms to 86400000 ms (one day)");
    }
    return ttl.toMillis();
  }

  /**
   * Checks a renewal interval: at least {@link #MIN_RENEW_INTERVAL}.
   *
   * @param interval the interval to check
   * @return the interval
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static Duration renewInterval(Duration interval) {
    if (interval == null || interval.compareTo(MIN_RENEW_INTERVAL) < 0) {
      throw new IllegalArgumentException(
          "writer-fence: renew interval "
              + interval
              + " is not allowed: at least "
              + MIN_RENEW_INTERVAL.toMillis()
              + " ms");
    }
    return interval;
  }

  private static int length(String s) {
    return s.codePointCount(0, s.length());
  }

  /**
   * Checks a waiter's priority, as {@code check_queue_args} does in SQL.
   *
   * @param priority higher is served first; one level is worth one second of waiting
   * @return the same value
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static int priority(int priority) {
    if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
      throw new IllegalArgumentException(
          "writer-fence: priority " + priority + " is not allowed: -100 to 100");
    }
    return priority;
  }

  /**
   * Checks the time after which a ticket that is not refreshed lapses, as {@code check_queue_args}
   * does in SQL.
   *
   * @param lapse whole seconds from 1 to 60
   * @return it in seconds
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static int lapseSeconds(Duration lapse) {
    if (lapse == null
        || lapse.getNano() != 0
        || lapse.getSeconds() < 1
        || lapse.getSeconds() > MAX_LAPSE_SECONDS) {
      throw new IllegalArgumentException(
          "writer-fence: ticket lapse "
              + (lapse == null ? "null" : lapse.toString())
              + " is not allowed: whole seconds from 1 to 60");
    }
    return (int) lapse.getSeconds();
  }

  /**
   * Checks a queued writer's head lapse, as {@code check_head_lapse} does in SQL (contract version
   * 5).
   *
   * @param headLapse whole milliseconds from 1 ms to 60 s
   * @return it in milliseconds
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static int headLapseMillis(Duration headLapse) {
    if (headLapse == null
        || headLapse.getNano() % 1_000_000 != 0
        || headLapse.compareTo(Duration.ofMillis(1)) < 0
        || headLapse.compareTo(Duration.ofSeconds(MAX_LAPSE_SECONDS)) > 0) {
      throw new IllegalArgumentException(
          "writer-fence: head lapse "
              + headLapse
              + " is not allowed: whole milliseconds from 1 ms to 60000 ms");
    }
    return (int) headLapse.toMillis();
  }

  /**
   * Checks how often the head of a fence's queue polls for the lease.
   *
   * @param interval from 1 ms to 1 s
   * @return the same value
   * @throws IllegalArgumentException naming the value and the rule when it breaks the rule
   */
  public static Duration queuePollInterval(Duration interval) {
    if (interval == null
        || interval.isNegative()
        || interval.toMillis() < 1
        || interval.compareTo(Duration.ofSeconds(1)) > 0) {
      throw new IllegalArgumentException(
          "writer-fence: queue.poll-interval " + interval + " is not allowed: from 1 ms to 1 s");
    }
    return interval;
  }

  /** A control or format character, or a surrogate without its partner. */
  private static boolean hasForbiddenCharacter(String s) {
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      if (Character.isISOControl(c) || isFormat(c) || isUnpairedSurrogate(c)) {
        return true;
      }
      i += Character.charCount(c);
    }
    return false;
  }

  /** {@link String#codePointAt} and {@link String#codePoints} give an unpaired surrogate as is. */
  private static boolean isUnpairedSurrogate(int c) {
    return c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE;
  }

  /**
   * @param codePoint a Unicode code point
   * @return whether it is in the fixed list of format characters (Unicode 16 category Cf)
   */
  public static boolean isFormat(int codePoint) {
    return inRanges(FORMAT_CHARACTERS, codePoint);
  }

  /**
   * @param codePoint a Unicode code point
   * @return whether it is white space for the leading and trailing rule (control characters aside)
   */
  public static boolean isWhiteSpace(int codePoint) {
    return inRanges(WHITE_SPACE, codePoint);
  }

  private static boolean inRanges(int[][] ranges, int codePoint) {
    for (int[] range : ranges) {
      if (codePoint >= range[0] && codePoint <= range[1]) {
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
              if (c > Character.MAX_VALUE && isFormat(c)) {
                out.append(String.format("\\U%08X", c));
              } else if (Character.isISOControl(c) || isFormat(c) || isUnpairedSurrogate(c)) {
                out.append(String.format("\\u%04X", c)); // made visible
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
