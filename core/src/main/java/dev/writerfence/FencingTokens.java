package dev.writerfence;

/**
 * The shape of a fencing token of the SQL contract (version 3, ADR 47): {@code epoch * 2^40 +
 * counter}, a positive {@code long}.
 *
 * <p>The epoch is the PostgreSQL timeline the token was granted on; it rises at every promotion of
 * a standby and at the end of every point-in-time recovery, so a token granted after a failover is
 * larger than every token granted before it, on any earlier timeline. The counter counts the grants
 * of one fence name on that timeline, from 1. Storage compares tokens as plain numbers and needs
 * none of this; the parts are for logs and operators.
 *
 * <p>Tokens of contract versions 1 and 2 (a plain counter from 1) read as epoch 0.
 */
public final class FencingTokens {
  /** Bits of a token below its epoch: the per-name counter. */
  public static final int COUNTER_BITS = 40;

  private static final long COUNTER_MASK = (1L << COUNTER_BITS) - 1;

  /**
   * What a backend that cannot mint fencing tokens (the lease-RPC backend on a contract without a
   * counter, ADR 57) gives as its lease's token: 0, below every real token. {@link
   * FenceLease#fencingToken()} refuses it with a clear error; {@link FenceLease#hasFencingToken()}
   * asks first.
   */
  public static final long NONE = 0;

  private FencingTokens() {}

  /**
   * @param fencingToken a fencing token, as {@link FenceLease#fencingToken()} gives it
   * @return the timeline it was granted on (0 for a token of contract version 1 or 2)
   * @throws IllegalArgumentException naming the value when it is not positive
   */
  public static long epoch(long fencingToken) {
    return checked(fencingToken) >>> COUNTER_BITS;
  }

  /**
   * @param fencingToken a fencing token, as {@link FenceLease#fencingToken()} gives it
   * @return its per-name counter on its timeline, from 1
   * @throws IllegalArgumentException naming the value when it is not positive
   */
  public static long counter(long fencingToken) {
    return checked(fencingToken) & COUNTER_MASK;
  }

  /**
   * @param epoch a timeline, 1 to {@code 2^23 - 1}
   * @return the token of a fence name's first grant on that timeline: {@code epoch * 2^40 + 1}
   * @throws IllegalArgumentException naming the value when it is out of that range
   */
  public static long first(long epoch) {
    if (epoch < 1 || epoch >= 1L << (63 - COUNTER_BITS)) {
      throw new IllegalArgumentException(
          "writer-fence: epoch " + epoch + " is not allowed: 1 to " + ((1L << 23) - 1));
    }
    return (epoch << COUNTER_BITS) + 1;
  }

  /**
   * @param fencingToken a fencing token
   * @return {@code "epoch.counter"}, for logs and status lines, e.g. {@code "2.17"}
   * @throws IllegalArgumentException naming the value when it is not positive
   */
  public static String describe(long fencingToken) {
    return epoch(fencingToken) + "." + counter(fencingToken);
  }

  /**
   * @param fencingToken a fencing token, or {@link #NONE}
   * @return {@code "fencing token 17"}, or {@code "no fencing token"} for {@link #NONE}: for
   *     messages
   */
  static String inWords(long fencingToken) {
    return fencingToken == NONE ? "no fencing token" : "fencing token " + fencingToken;
  }

  private static long checked(long fencingToken) {
    if (fencingToken < 1) {
      throw new IllegalArgumentException(
          "writer-fence: fencing token " + fencingToken + " is not allowed: a positive number");
    }
    return fencingToken;
  }
}
