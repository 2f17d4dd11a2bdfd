package dev.writerfence.demo;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts retries and remembers, per thread, how the last acquire went, so the fenced method can
 * record its own wait. The fence calls it on the thread that acquires, before the method runs.
 */
final class AcquireStats implements FenceListener {
  /** How one acquire went. */
  record Acquire(int attempts, Duration waited) {}

  private final ThreadLocal<Acquire> last = new ThreadLocal<>();
  private final LongAdder retries = new LongAdder();

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    retries.add(attempts - 1L);
    last.set(new Acquire(attempts, waited));
  }

  @Override
  public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
    // 0 attempts when the turn stayed with other threads of this process: no retry either
    retries.add(Math.max(0, attempts - 1L));
  }

  /**
   * @return how this thread's last acquire went, or one attempt with no wait when unknown
   */
  Acquire lastAcquire() {
    Acquire a = last.get();
    return a != null ? a : new Acquire(1, Duration.ZERO);
  }

  /**
   * @return acquire attempts made after a busy one, in all
   */
  long retries() {
    return retries.sum();
  }
}
