package dev.writerfence.faults;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Remembers when (monotonic clock) and why a fence reported a lease lost. */
final class LossWatch implements FenceListener {
  private final CountDownLatch lost = new CountDownLatch(1);
  private volatile long lostAtNanos;
  private volatile String reason;

  @Override
  public void lost(FenceLease lease, String why) {
    lostAtNanos = System.nanoTime();
    reason = why;
    lost.countDown();
  }

  /**
   * @param seconds how long to wait at most
   * @return whether a loss was reported within that time
   */
  boolean await(long seconds) throws InterruptedException {
    return lost.await(seconds, TimeUnit.SECONDS);
  }

  long lostAtNanos() {
    return lostAtNanos;
  }

  String reason() {
    return reason;
  }
}
