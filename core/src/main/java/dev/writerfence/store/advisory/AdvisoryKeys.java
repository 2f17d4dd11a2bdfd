package dev.writerfence.store.advisory;

import dev.writerfence.spi.FenceArguments;
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
 * <p>The key of {@code corpus} is {@value #CORPUS_KEY}. Keys of different names can collide (a
 * 64-bit hash; about one in 10^19 for a pair) and could collide with another application's advisory
 * locks on the same database; the prefix keeps that unlikely, not impossible.
 */
public final class AdvisoryKeys {
  /** The prefix hashed before the fence name. */
  public static final String PREFIX = "writer-fence:";

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

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }
}
