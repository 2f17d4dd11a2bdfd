package dev.writerfence;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.TransientLeaseStoreException;
import dev.writerfence.store.LeaseStatus;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The acquire side of a {@link WriterFence}: attempts against the lease store, busy and transient
 * outcomes retried by Resilience4j Retry with the request's {@link BusyRetryPolicy}, and every
 * other outcome sorted into busy, unavailable or interrupted.
 */
final class LeaseAcquirer {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseAcquirer.class);

  private final WriterFence fence;
  private final LeaseStore store;
  private final FenceListener listener;
  private final ConcurrentMap<BusyRetryPolicy, Retry> retries = new ConcurrentHashMap<>();
  private final LocalTurns turns = new LocalTurns();

  /** The acquire side of {@code fence}, whose store, defaults and listener it uses. */
  LeaseAcquirer(WriterFence fence) {
    this.fence = fence;
    this.store = fence.store;
    this.listener = fence.listener;
  }

  /**
   * Acquires with {@code policy}: empty when still busy after the last attempt and {@code
   * busyThrows} is false.
   */
  Optional<HeldLease> acquire(FenceRequest request, BusyRetryPolicy policy, boolean busyThrows) {
    long queued = System.nanoTime();
    LocalTurns.Turn turn = takeTurn(request, policy);
    if (turn == null) {
      return busy(request, 0, busyThrows, queued, policy);
    }
    StoreOutcome outcome;
    try {
      fence.refuseWhenClosed(request.fenceName()); // closed while this thread waited its turn
      BusyRetryPolicy rest = policy.afterWaiting(Duration.ofNanos(System.nanoTime() - queued));
      // A policy cut after a wait is not kept: there may be as many cuts as attempts.
      outcome = acquireFromStore(request, rest == policy ? retryFor(policy) : retry(rest), turn);
    } catch (Throwable t) {
      turn.giveBack();
      throw t;
    }
    if (outcome.lease() == null) {
      turn.giveBack();
      return busy(request, outcome.attempts(), busyThrows, queued, policy);
    }
    return Optional.of(outcome.lease());
  }

  /** The store's answer: the lease, or {@code null} when busy through every attempt. */
  private record StoreOutcome(HeldLease lease, int attempts) {}

  /**
   * The turn of the request's fence name among this fence's threads, waited for as long as the
   * policy's scheduled waits: {@code null} when other threads of this fence kept it that long.
   */
  private LocalTurns.Turn takeTurn(FenceRequest request, BusyRetryPolicy policy) {
    long waitNanos = saturatedNanos(policy.scheduledWait());
    try {
      if (Thread.currentThread().isInterrupted()) {
        // As before turns: a free turn still gets its attempt; only a wait would be interrupted.
        LocalTurns.Turn free = turns.take(request.fenceName(), 0);
        if (free != null || waitNanos == 0) {
          return free;
        }
        throw new InterruptedException("interrupted before waiting for the turn");
      }
      return turns.take(request.fenceName(), waitNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WriterFenceInterruptedException(
          request.fenceName(),
          "writer-fence: fence '"
              + request.fenceName()
              + "': interrupted while waiting for another writer of this process to release it;"
              + " the guarded code did not run and no lease is held",
          e);
    }
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) { // over 292 years: as good as forever
      return Long.MAX_VALUE;
    }
  }

  /** Busy after the last attempt: empty, or the exception naming the holder. */
  private Optional<HeldLease> busy(
      FenceRequest request,
      int attempts,
      boolean busyThrows,
      long queuedNanos,
      BusyRetryPolicy policy) {
    if (!busyThrows) {
      return Optional.empty();
    }
    String fenceName = request.fenceName();
    Optional<LeaseStatus> holder = busyHolder(fenceName);
    ListenerCalls.notify(() -> listener.busy(request, attempts, holder));
    throw new WriterFenceBusyException(
        fenceName,
        attempts,
        holder.map(LeaseStatus::holderLabel).orElse(null),
        holder.map(LeaseStatus::expiresAt).orElse(null),
        Duration.ofNanos(System.nanoTime() - queuedNanos),
        policy.scheduledWait());
  }

  /**
   * Asks the store, busy retried by {@code retry}, while holding the fence name's local turn; a
   * lease it grants takes the turn with it.
   */
  private StoreOutcome acquireFromStore(FenceRequest request, Retry retry, LocalTurns.Turn turn) {
    String fenceName = request.fenceName();
    UUID holderToken = UUID.randomUUID(); // one token for every attempt: a repeat is idempotent
    String label = request.holderLabel().orElse(fence.defaultHolderLabel());
    Duration ttl = request.ttl().orElse(fence.defaultTtl());
    int[] attempts = {0};
    long started = System.nanoTime();
    // When the earliest attempt that may have granted the lease was sent: an attempt whose answer
    // was lost may have granted it, and a repeat with the same holder token returns that grant
    // unchanged, so the TTL is counted from the first attempt since the last busy answer.
    long[] grantableSince = {0L};
    boolean[] grantable = {false};
    Callable<Optional<StoreLease>> attempt =
        () -> {
          int n = ++attempts[0];
          long sent = System.nanoTime();
          if (!grantable[0]) {
            grantable[0] = true;
            grantableSince[0] = sent;
          }
          Optional<StoreLease> lease = store.acquire(fenceName, holderToken, label, ttl);
          if (lease.isEmpty()) {
            grantable[0] = false;
            ListenerCalls.notify(() -> listener.busyAttempt(request, n));
          }
          return lease;
        };
    Optional<StoreLease> lease;
    try {
      lease = retry.executeCallable(attempt);
    } catch (IllegalArgumentException | WriterFenceUnavailableException e) {
      // Thrown by an attempt itself, never by a wait: not retried, so not an interrupted wait.
      if (e instanceof WriterFenceUnavailableException u) {
        ListenerCalls.notify(() -> listener.unavailable(request, u));
      }
      throw e;
    } catch (Exception e) {
      // Resilience4j answers an interrupt during its wait by setting the flag again and throwing
      // what it has: a CancellationException, the last transient error, or nothing usable.
      if (e instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
        Thread.currentThread().interrupt();
        throw new WriterFenceInterruptedException(
            fenceName,
            "writer-fence: fence '"
                + fenceName
                + "': interrupted while waiting to try the acquire again, after "
                + attempts[0]
                + (attempts[0] == 1 ? " attempt" : " attempts")
                + "; the guarded code did not run and no lease is held",
            e);
      }
      if (e instanceof TransientLeaseStoreException t) {
        throw unavailable(
            request,
            "writer-fence: fence '"
                + fenceName
                + "': the database kept failing transiently (SQLState "
                + t.sqlState()
                + ") through "
                + attempts[0]
                + " attempts; the guarded code did not run",
            e);
      }
      throw unavailable(
          request, "writer-fence: fence '" + fenceName + "': acquire failed: " + e, e);
    }
    if (lease.isPresent()) {
      HeldLease acquired =
          new HeldLease(fence, lease.get(), fenceName, holderToken, label, ttl, grantableSince[0]);
      acquired.holdTurn(turn);
      Duration waited = Duration.ofNanos(System.nanoTime() - started);
      try {
        ListenerCalls.notify(() -> listener.acquired(acquired.view, attempts[0], waited));
      } catch (Throwable t) { // a VirtualMachineError: nobody will own the lease, so give it back
        acquired.releaseAfter(t);
        throw t;
      }
      return new StoreOutcome(acquired, attempts[0]);
    }
    return new StoreOutcome(null, attempts[0]);
  }

  /** Who holds a busy fence, for the exception's message; best effort. */
  private Optional<LeaseStatus> busyHolder(String fenceName) {
    try {
      return store.status(fenceName).filter(LeaseStatus::isHeld);
    } catch (RuntimeException e) {
      LOG.debug("writer-fence: could not read the holder of busy fence '{}'", fenceName, e);
      return Optional.empty();
    }
  }

  private WriterFenceUnavailableException unavailable(
      FenceRequest request, String message, Throwable cause) {
    WriterFenceUnavailableException e =
        new WriterFenceUnavailableException(request.fenceName(), message, cause);
    ListenerCalls.notify(() -> listener.unavailable(request, e));
    return e;
  }

  private Retry retryFor(BusyRetryPolicy policy) {
    return retries.computeIfAbsent(policy, LeaseAcquirer::retry);
  }

  private static Retry retry(BusyRetryPolicy p) {
    return Retry.of(
        "writer-fence",
        RetryConfig.<Optional<StoreLease>>custom()
            .maxAttempts(p.maxAttempts())
            .intervalFunction(p.intervalFunction())
            .retryOnResult(Optional::isEmpty)
            .retryOnException(e -> e instanceof TransientLeaseStoreException)
            .failAfterMaxAttempts(false)
            .build());
  }
}
