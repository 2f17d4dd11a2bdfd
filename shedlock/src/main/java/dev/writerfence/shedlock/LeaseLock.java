package dev.writerfence.shedlock;

import dev.writerfence.spi.StoreLease;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import net.javacrumbs.shedlock.core.AbstractSimpleLock;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ShedLock lock held as a lease. Unlocking before {@code lockAtLeastFor} has passed keeps the
 * lease and shortens its expiry to the end of that time; unlocking after it releases the lease.
 * Either statement names the holder token, so a lock whose lease another holder took over changes
 * nothing. After {@code unlock} or {@code extend} this object is spent (ShedLock's rule): a second
 * use throws {@link IllegalStateException}.
 *
 * <p>{@code unlock} and {@code extend} repeat a statement that failed transiently up to 3 times;
 * when the database still cannot confirm them they throw ({@code TransientLeaseStoreException} or
 * {@code WriterFenceUnavailableException}) and the lease runs out at its TTL, never sooner.
 */
public final class LeaseLock extends AbstractSimpleLock {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseLock.class);

  private final WriterFenceLockProvider provider;
  private final StoreLease grant;
  private final CurrentLocks.Entry current;
  private final long atLeastUntilNanos;

  LeaseLock(
      LockConfiguration configuration,
      WriterFenceLockProvider provider,
      StoreLease grant,
      CurrentLocks.Entry current) {
    super(configuration);
    this.provider = provider;
    this.grant = grant;
    this.current = current;
    // Counted from when the lease was confirmed, on the monotonic clock: never shorter than asked.
    this.atLeastUntilNanos = System.nanoTime() + configuration.getLockAtLeastFor().toNanos();
  }

  /**
   * @return the lease behind this lock (after an extend, the extended lock's lease has the new
   *     expiry); never {@code null}
   */
  public LockLease lease() {
    return current.lease();
  }

  @Override
  protected void doUnlock() {
    current.end();
    String name = lockConfiguration.getName();
    long atLeastLeft = atLeastUntilNanos - System.nanoTime();
    if (atLeastLeft > 0) {
      Duration keep = LockDurations.remainder(atLeastLeft);
      if (provider.retried(() -> grant.renew(keep)).isEmpty()) {
        LOG.warn(
            "writer-fence: lock '{}' was unlocked within its lockAtLeastFor, but its lease had"
                + " already expired or been taken over; nothing was changed",
            name);
      }
      return;
    }
    if (!provider.retried(grant::release)) {
      LOG.warn(
          "writer-fence: lock '{}' was unlocked after its lease had expired or been taken over"
              + " (the job outlasted lockAtMostFor); the other holder's lease was left alone",
          name);
    }
  }

  @Override
  protected Optional<SimpleLock> doExtend(LockConfiguration extended) {
    String name = extended.getName();
    Duration ttl = LockDurations.ttl(name, extended.getLockAtMostFor());
    Optional<Instant> expiry = provider.retried(() -> grant.renew(ttl));
    if (expiry.isEmpty()) {
      current.end();
      return Optional.empty();
    }
    current.extended(current.lease().extendedTo(expiry.get()));
    return Optional.of(new LeaseLock(extended, provider, grant, current));
  }

  @Override
  public String toString() {
    return "LeaseLock[" + lockConfiguration.getName() + ", " + current.lease().fencingToken() + "]";
  }
}
