package dev.writerfence.shedlock;

import dev.writerfence.internal.FenceArguments;
import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * ShedLock's durations as lease TTLs. A lease store takes whole milliseconds from 1 ms to one day
 * (contract version 4, ADR 62), so a duration keeps its milliseconds and only a fraction of a
 * millisecond is rounded up, never down: a lock is never shorter than ShedLock was asked for, and
 * never longer by as much as a millisecond. A zero duration holds 1 ms, the shortest TTL.
 */
final class LockDurations {
  private static final Duration SHORTEST = Duration.ofMillis(FenceArguments.MIN_TTL_MILLIS);
  private static final Duration LONGEST = Duration.ofMillis(FenceArguments.MAX_TTL_MILLIS);

  private LockDurations() {}

  /**
   * @param lockName the lock, for the message
   * @param lockAtMostFor ShedLock's upper bound; zero or more
   * @return that bound as a TTL: rounded up to whole milliseconds, at least 1 ms
   * @throws IllegalArgumentException naming the lock and the value when it is over a day
   */
  static Duration ttl(String lockName, Duration lockAtMostFor) {
    Duration ttl = roundUp(lockAtMostFor);
    if (ttl.compareTo(LONGEST) > 0) {
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
   * @return that time as a TTL: rounded up to whole milliseconds, at least 1 ms
   */
  static Duration remainder(long nanos) {
    return roundUp(Duration.ofNanos(nanos));
  }

  private static Duration roundUp(Duration d) {
    Duration millis = d.truncatedTo(ChronoUnit.MILLIS);
    Duration up = millis.equals(d) ? millis : millis.plusMillis(1);
    return up.compareTo(SHORTEST) < 0 ? SHORTEST : up;
  }
}
