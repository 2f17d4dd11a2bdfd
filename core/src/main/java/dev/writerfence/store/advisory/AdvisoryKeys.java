package dev.writerfence.store.advisory;

import dev.writerfence.internal.FenceArguments;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The 64-bit advisory-lock key of a fence name (ADR 7): the first 8 bytes of SHA-256 over the UTF-8
 * bytes of {@code "writer-fence:" + fenceName}, read as a signed big-endian {@code long}. Any
 * language can compute it, so writers outside Java lock the same key:
 *
 * <pre>{@code
 * -- PostgreSQL
 * SELECT ('x' || left(encode(sha256(convert_to('writer-fence:' || 'corpus', 'UTF8')), 'hex'), 16))
 *        ::bit(64)::bigint;
 * }</pre>
 *
 * <p>That is the default key scheme, {@value #DEFAULT_KEY_SCHEME}. A store may take another ({@code
 * advisory.key-scheme}, {@link #checkKeyScheme}), and a fenced method or request may name its own
 * key text ({@code @WriterFenced(advisoryKey = ...)}, {@code FenceRequest.Builder #advisoryKey}),
 * so that writer-fence takes the very key that writers outside it already lock (ADR 58): the key of
 * a key text is {@link #keyOfText}, the same hash without the prefix.
 *
 * <p>The key of {@code corpus} is {@value #CORPUS_KEY}. Keys of different names can collide (a
 * 64-bit hash; about one in 10^19 for a pair) and could collide with another application's advisory
 * locks on the same database; the prefix keeps that unlikely, not impossible.
 */
public final class AdvisoryKeys {
  /** The prefix hashed before the fence name. */
  public static final String PREFIX = "writer-fence:";

  /** The key scheme when none is configured: the fence name after {@link #PREFIX}. */
  public static final String DEFAULT_KEY_SCHEME = "writer-fence:{name}";

  private static final String SCHEME_RULE =
      "text with {name} (the fence name) at least once, no other placeholder; {{ and }} are"
          + " literal braces; for example vibey.fence:{name}";

  /** The key of the fence name {@code corpus}, as a fixed test vector. */
  public static final long CORPUS_KEY = 3457266040830166800L;

  private AdvisoryKeys() {}

  /**
   * @param fenceName a fence name by the rules of {@link FenceArguments#fenceName}: 1 to 200
   *     characters, no control or format characters, no leading or trailing white space
   * @return the signed 64-bit key {@code pg_try_advisory_lock(bigint)} takes for it
   * @throws IllegalArgumentException naming the value when the fence name breaks its rule
   */
  public static long keyOf(String fenceName) {
    String name = FenceArguments.fenceName(fenceName);
    byte[] digest = sha256().digest((PREFIX + name).getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(digest, 0, Long.BYTES).getLong();
  }

  /**
   * The key of a key text: the first 8 bytes of SHA-256 over its UTF-8 bytes, read as a signed
   * big-endian {@code long}. Python's {@code int.from_bytes(hashlib.sha256(text.encode()).digest()
   * [:8], "big", signed=True)} gives the same number.
   *
   * @param keyText the text, by {@link FenceArguments#advisoryKeyText}: 1 to 1000 characters, no
   *     control or format characters
   * @return the signed 64-bit key {@code pg_try_advisory_lock(bigint)} takes for it
   * @throws IllegalArgumentException naming the value when the text breaks its rule
   */
  public static long keyOfText(String keyText) {
    byte[] digest =
        sha256().digest(FenceArguments.advisoryKeyText(keyText).getBytes(StandardCharsets.UTF_8));
    return ByteBuffer.wrap(digest, 0, Long.BYTES).getLong();
  }

  /**
   * Checks a key scheme: text with the placeholder {@code {name}} at least once and no other
   * placeholder; {@code {{} } and {@code }}} are literal braces.
   *
   * @param scheme the scheme, for example {@value #DEFAULT_KEY_SCHEME}
   * @return the same scheme
   * @throws IllegalArgumentException naming the value and what is allowed when it breaks the rule
   */
  public static String checkKeyScheme(String scheme) {
    if (scheme == null || !expand(scheme, "x").found) {
      throw new IllegalArgumentException(
          "writer-fence: advisory.key-scheme "
              + quoted(scheme)
              + " is not allowed: "
              + SCHEME_RULE);
    }
    return scheme;
  }

  /**
   * The key text of a fence name under a key scheme: the scheme with every {@code {name}} replaced
   * by the name. Under {@link #DEFAULT_KEY_SCHEME} the key of this text is {@link #keyOf}.
   *
   * @param scheme a scheme that passed {@link #checkKeyScheme}
   * @param fenceName the fence name, already checked
   * @return the key text
   * @throws IllegalArgumentException naming the value when the scheme or the text breaks its rule
   */
  public static String keyText(String scheme, String fenceName) {
    Expansion e = expand(scheme, fenceName);
    if (!e.found) {
      checkKeyScheme(scheme);
    }
    return FenceArguments.advisoryKeyText(e.text);
  }

  private record Expansion(String text, boolean found) {}

  /** The scheme expanded; {@code found} is false when it is malformed or has no {@code {name}}. */
  private static Expansion expand(String scheme, String fenceName) {
    StringBuilder out = new StringBuilder();
    boolean found = false;
    for (int i = 0; i < scheme.length(); i++) {
      char c = scheme.charAt(i);
      boolean doubled = i + 1 < scheme.length() && scheme.charAt(i + 1) == c;
      if ((c == '{' || c == '}') && doubled) {
        out.append(c);
        i++;
      } else if (c == '{' && scheme.startsWith("{name}", i)) {
        out.append(fenceName);
        found = true;
        i += "{name}".length() - 1;
      } else if (c == '{' || c == '}') {
        return new Expansion(null, false);
      } else {
        out.append(c);
      }
    }
    return new Expansion(out.toString(), found);
  }

  private static String quoted(String s) {
    return s == null ? "null" : "'" + s + "'";
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
