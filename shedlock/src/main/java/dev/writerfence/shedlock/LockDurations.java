package dev.writerfence.shedlock;

import dev.writerfence.internal.FenceArguments;
import java.time.Duration;

/**
 * ShedLock's durations as lease TTLs. The contract counts whole seconds from 1 to 86400, so a
 * duration is rounded up, never down: a lock is never shorter than ShedLock was asked for.
 */
final class LockDurations {
  private LockDurations() {}

  /**
   * @param lockName the lock, for the message
   * @param lockAtMostFor ShedLock's upper bound; zero or more
   * @return that bound as a TTL: rounded up to whole seconds, at least 1 s
   * @throws IllegalArgumentException naming the lock and the value when it is over a day
   */
  static Duration ttl(String lockName, Duration lockAtMostFor) {
    Duration ttl = roundUp(lockAtMostFor);
    if (ttl.getSeconds() > FenceArguments.MAX_TTL_SECONDS) {
      throw new IllegalArgumentException(
          "writer-fence: lock '"
              + lockName
              + "': lockAtMostFor "
              + lockAtMostFor
              + " is not allowed: at most 1 day (PT24H), the longest TTL of a lease");
    }
    return ttl;
  }

  /**
   * @param nanos time left of a {@code lockAtLeastFor}; more than zero
   * @return that time as a TTL: rounded up to whole seconds, at least 1 s
   */
  static Duration remainder(long nanos) {
    return roundUp(Duration.ofNanos(nanos));
  }

  private static Duration roundUp(Duration d) {
    long seconds = d.getSeconds() + (d.getNano() > 0 ? 1 : 0);
    return Duration.ofSeconds(Math.max(FenceArguments.MIN_TTL_SECONDS, seconds));
  }
}
