package dev.writerfence.testing;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceUnavailableException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link FenceListener} that counts each outcome, for assertions. Thread-safe. */
public final class CountingListener implements FenceListener {
  private final AtomicInteger acquired = new AtomicInteger();
  private final AtomicInteger attemptsOfLastAcquire = new AtomicInteger();
  private final AtomicInteger busyAttempts = new AtomicInteger();
  private final AtomicInteger busy = new AtomicInteger();
  private final AtomicInteger unavailable = new AtomicInteger();
  private final AtomicInteger freed = new AtomicInteger();
  private final AtomicInteger notFreed = new AtomicInteger();

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    acquired.incrementAndGet();
    attemptsOfLastAcquire.set(attempts);
  }

  @Override
  public void busyAttempt(FenceRequest request, int attempt) {
    busyAttempts.incrementAndGet();
  }

  @Override
  public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
    busy.incrementAndGet();
  }

  @Override
  public void unavailable(FenceRequest request, WriterFenceUnavailableException failure) {
    unavailable.incrementAndGet();
  }

  @Override
  public void released(FenceLease lease, boolean wasFreed) {
    (wasFreed ? freed : notFreed).incrementAndGet();
  }

  /**
   * @return leases acquired
   */
  public int acquired() {
    return acquired.get();
  }

  /**
   * @return the attempts the last acquired lease took
   */
  public int attemptsOfLastAcquire() {
    return attemptsOfLastAcquire.get();
  }

  /**
   * @return single attempts that found the fence busy
   */
  public int busyAttempts() {
    return busyAttempts.get();
  }

  /**
   * @return requests that stayed busy through the last attempt
   */
  public int busy() {
    return busy.get();
  }

  /**
   * @return requests the database could not confirm
   */
  public int unavailable() {
    return unavailable.get();
  }

  /**
   * @return releases that freed the row
   */
  public int freed() {
    return freed.get();
  }

  /**
   * @return releases that found another holder or a free row
   */
  public int notFreed() {
    return notFreed.get();
  }
}
