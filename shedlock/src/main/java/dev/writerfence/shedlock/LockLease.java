package dev.writerfence.shedlock;

import java.time.Instant;
import java.util.UUID;

/**
 * The lease behind one ShedLock lock, as the running job sees it through {@link
 * WriterFenceLockProvider#current(String)}: stamp storage writes with {@link #fencingToken()} so a
 * job that overran its {@code lockAtMostFor} cannot overwrite the next holder's work.
 *
 * @param lockName the ShedLock lock name, which is the fence name; never {@code null}
 * @param holderToken the holder token minted for this lock; only it renews or releases the lease
 * @param holderLabel the holder label shown to operators; never {@code null}
 * @param fencingToken strictly greater than every token issued before for this name, at least 1
 * @param acquiredAt when the lease was granted (database clock); never {@code null}
 * @param expiresAt when the lease may be taken over unless extended (database clock); after an
 *     {@code extend}, the new expiry; never {@code null}
 */
public record LockLease(
    String lockName,
    UUID holderToken,
    String holderLabel,
    long fencingToken,
    Instant acquiredAt,
    Instant expiresAt) {

  /** The same lease with the expiry an extend set. */
  LockLease extendedTo(Instant newExpiry) {
    return new LockLease(lockName, holderToken, holderLabel, fencingToken, acquiredAt, newExpiry);
  }
}
