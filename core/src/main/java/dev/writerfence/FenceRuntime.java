package dev.writerfence;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.ReleaseSignal;
import dev.writerfence.spi.TransientLeaseStoreException;
import dev.writerfence.store.lease.PgLeaseStore;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the lifecycle of one {@link WriterFence}'s holds runs with, built once by the fence and
 * handed down to its {@link FencedCallFlow}: no lifecycle class reads the fence's fields.
 *
 * @param store the backend, and the holds' exclusion domain
 * @param keeper the renewal threads and the leases kept now
 * @param keeping what each {@link RenewingLease} is kept with (the keeper's threads, the release
 *     retry, the listener)
 * @param listener told of acquires, busy answers, releases and losses; {@code null} for none, so
 *     that no listener call is made at all
 * @param observer observes acquires and holds in the fence's observation registry; {@code null} for
 *     none, so that nothing is observed and no class of Micrometer is loaded
 * @param defaultTtl the TTL of requests that set none
 * @param defaultHolderLabel the holder label of requests that set none; {@code null} for none
 * @param defaultRetryPolicy the busy retry policy of requests that set none
 * @param defaultPriority the queue priority of requests that set none: -100 to 100
 * @param queueLapse how long a waiter's ticket lasts without a poll
 * @param queuePollInterval how often the head of a queue polls
 * @param queueBusyEarly whether a waiter that cannot be served within its budget at the queue's
 *     pace gives up at once ({@link QueuePace})
 * @param releaseSignal tells the front of a queue of a release; {@code null}: poll on schedule
 * @param closed set once the fence is closed: no acquire from then on
 */
record FenceRuntime(
    LeaseStore store,
    LeaseKeeper keeper,
    RenewingLease.Context keeping,
    FenceListener listener,
    ObservedFence observer,
    Duration defaultTtl,
    String defaultHolderLabel,
    BusyRetryPolicy defaultRetryPolicy,
    int defaultPriority,
    Duration queueLapse,
    Duration queuePollInterval,
    boolean queueBusyEarly,
    ReleaseSignal releaseSignal,
    AtomicBoolean closed) {
  /**
   * Builds the runtime of a fence from its builder's settings: the store (a {@link PgLeaseStore}
   * over the data source unless one was given), the renewal threads, the release retry.
   *
   * @throws IllegalStateException when renewal is on and the store cannot renew
   */
  static FenceRuntime of(FenceSettings b) {
    LeaseStore store =
        b.store != null ? b.store : new PgLeaseStore(b.dataSource, b.schema, b.queryTimeout);
    if (b.renews && !store.renewsLeases()) {
      throw new IllegalStateException(
          "writer-fence: the store "
              + store
              + " cannot renew a lease (its contract has no renew), so a fence on it must be"
              + " built withoutRenewal() (renew-interval=off): each lease then lasts the TTL of"
              + " its acquire and turns lost when that runs out; give requests a TTL that outlasts"
              + " the work they guard");
    }
    LeaseKeeper keeper = new LeaseKeeper(b.renewInterval, b.renews);
    if (b.releaseOnJvmShutdown) {
      ShutdownHook.addHookOnce();
    }
    // A transient error rolled the release back, so repeating it is safe; giving up would leave
    // the lease held until its TTL.
    Retry releaseRetry =
        Retry.of(
            "writer-fence-release",
            RetryConfig.<Boolean>custom()
                .maxAttempts(b.retryPolicy.maxAttempts())
                .intervalFunction(b.retryPolicy.intervalFunction())
                .retryOnException(e -> e instanceof TransientLeaseStoreException)
                .build());
    AtomicBoolean closed = new AtomicBoolean();
    // An observed fence hears of releases and losses as a listener does, beside the caller's.
    FenceListener listener = b.observer == null ? b.listener : b.observer.beside(b.listener);
    return new FenceRuntime(
        store,
        keeper,
        // A release waits for a renew statement under way, which the query timeout bounds.
        keeper.context(
            releaseRetry,
            b.queryTimeout.plusSeconds(1).toNanos(),
            listener,
            b.releaseOnJvmShutdown,
            closed),
        listener,
        b.observer,
        b.defaultTtl,
        b.defaultHolderLabel,
        b.retryPolicy,
        b.defaultPriority,
        b.queueLapse,
        b.queuePollInterval,
        b.queueBusyEarly,
        releaseSignal(b, store),
        closed);
  }

  /**
   * @return how the front of the fence's queues learns of a release: {@code notified}, {@code
   *     polled}, {@code pending} (not proved yet) or {@code off} (not listening)
   */
  String queueWakeUp() {
    return releaseSignal == null ? "off" : releaseSignal.mode().label();
  }

  /** The store's release signal when the fence listens: on its direct URL, else its data source. */
  private static ReleaseSignal releaseSignal(FenceSettings b, LeaseStore store) {
    if (!b.queueListen || !store.keepsQueue()) {
      return null;
    }
    return (b.queueListenDirect != null
            ? store.openReleaseSignal(b.queueListenDirect)
            : store.openReleaseSignal())
        .orElse(null);
  }
}
