package dev.writerfence.testing;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import java.util.Optional;

/**
 * Asserts, from inside the code under test (a fake storage client, a callback), that it runs under
 * a fence: as ShedLock's {@code LockAssert}, but for a named fence and a lease that is still valid.
 *
 * <pre>{@code
 * class FakeBucket implements Bucket {
 *   public void put(String key, byte[] bytes) {
 *     FenceAssert.assertFenced("corpus"); // fails the test if the writer forgot the fence
 *     objects.put(key, bytes);
 *   }
 * }
 * }</pre>
 */
public final class FenceAssert {
  private FenceAssert() {}

  /**
   * Fails unless the current thread holds a valid lease on the fence name, in any fence.
   *
   * @param fenceName the fence name as the code says it (without a test's prefix)
   * @return the lease, for a further look at its fencing token
   * @throws AssertionError naming the fence when the thread holds no lease on it, or the lease it
   *     holds was lost
   */
  public static FenceLease assertFenced(String fenceName) {
    return valid(fenceName, WriterFence.current(fenceName));
  }

  /**
   * Fails unless the current thread holds a valid lease on the fence name in one fence's domain.
   *
   * @param fence the fence the lease must come from (its lease store); never {@code null}
   * @param fenceName the fence name as the code says it
   * @return the lease
   * @throws AssertionError naming the fence when the thread holds no lease on it there, or the
   *     lease was lost
   */
  public static FenceLease assertFenced(WriterFence fence, String fenceName) {
    return valid(fenceName, fence.currentLease(fenceName));
  }

  private static FenceLease valid(String fenceName, Optional<FenceLease> held) {
    FenceLease lease =
        held.orElseThrow(
            () ->
                new AssertionError(
                    "expected the current thread ("
                        + Thread.currentThread().getName()
                        + ") to hold the fence '"
                        + fenceName
                        + "', but it holds no lease on it"));
    if (!lease.isValid()) {
      throw new AssertionError(
          "expected a valid lease on the fence '"
              + fenceName
              + "', but it was lost: "
              + lease.lostReason().orElse("unknown reason"));
    }
    return lease;
  }
}
