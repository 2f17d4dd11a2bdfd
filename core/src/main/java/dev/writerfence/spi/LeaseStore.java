package dev.writerfence.spi;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFenceUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Where leases live: the whole contract a backend implements, with the {@link StoreLease} handle
 * its acquire returns. Every weaving mode reaches it through {@code WriterFence}; nothing else
 * talks to a backend.
 *
 * <p>Every method makes at most one round trip, never blocks on another holder (busy is an answer,
 * not a wait), and either answers or throws:
 *
 * <ul>
 *   <li>{@link TransientLeaseStoreException}: the attempt failed in a way that may succeed at once
 *       when repeated (serialization failure, deadlock, lock timeout); the caller may retry.
 *   <li>{@link WriterFenceUnavailableException}: the store cannot answer; fail closed.
 *   <li>{@link IllegalArgumentException}: an input broke a rule of the contract.
 * </ul>
 *
 * <p>A store may keep a fair queue of waiters ({@link #keepsQueue()}): a writer that means to retry
 * polls with {@link #acquireInTurn} under one {@link Ticket}, and the store grants a free lease
 * only to the head of the queue (highest priority, aged by waiting time, then earliest arrival), or
 * to {@link #acquire} when nobody waits. The queue's methods have defaults for a store without one:
 * {@code acquireInTurn} is a plain {@code acquire}, priorities are ignored, and there is nothing to
 * enqueue, leave or show.
 *
 * <p>A store may hold resources of its own (the advisory backend's pinned connections): {@link
 * #close()} ends them. Whoever built the store closes it, after the fences on it are closed; a
 * {@code WriterFence} does not close its store.
 *
 * <p>Implementations are thread-safe.
 */
public interface LeaseStore extends AutoCloseable {

  /**
   * Tries once to take the lease.
   *
   * @param fenceName the fence name, already checked
   * @param holderToken the holder token minted for this acquire; the same token again while it
   *     holds the lease gets its current lease back
   * @param holderLabel the holder label, or {@code null}
   * @param ttl whole milliseconds from 1 ms to 86400000 ms (one day), {@link
   *     dev.writerfence.internal.FenceArguments#ttlMillis}; a fence's own TTLs are whole seconds, a
   *     store's other callers (the ShedLock provider) may pass less. A store that keeps coarser
   *     expiries rounds up, never down, and says so in its documentation
   * @return the lease's handle, which renews and releases it; empty when another live holder has it
   *     (busy)
   */
  Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl);

  /**
   * Whether a lease of this store can be renewed ({@link StoreLease#renew}). A store that cannot
   * (the lease-RPC backend: the existing acquire takes only a free or expired row, ADR 57) holds a
   * lease for the TTL of its acquire at most; a fence on it must be built {@code withoutRenewal()},
   * and its leases turn lost when their TTL runs out.
   *
   * @return {@code true} (the default) when leases are renewed
   */
  default boolean renewsLeases() {
    return true;
  }

  /**
   * Tries once to take the lease, locking the key an advisory key text names rather than the one
   * the store derives from the fence name ({@code FenceRequest.Builder#advisoryKey}). The default,
   * for a store that locks no key: with {@code null} one plain {@link #acquire(String, UUID,
   * String, Duration)}; with a text, refused, so a call meant to exclude writers of that key never
   * runs without excluding them.
   *
   * @param fenceName the fence name, already checked
   * @param advisoryKey the advisory key text, already checked, or {@code null} for the store's own
   *     key of the fence name
   * @param holderToken as for {@link #acquire(String, UUID, String, Duration)}
   * @param holderLabel the holder label, or {@code null}
   * @param ttl as for {@link #acquire(String, UUID, String, Duration)}
   * @return the lease's handle; empty when busy
   * @throws IllegalArgumentException naming the fence and the text when the store takes no advisory
   *     key text
   */
  default Optional<StoreLease> acquire(
      String fenceName, String advisoryKey, UUID holderToken, String holderLabel, Duration ttl) {
    if (advisoryKey != null) {
      throw noAdvisoryKey(this, fenceName, advisoryKey);
    }
    return acquire(fenceName, holderToken, holderLabel, ttl);
  }

  /**
   * {@link #acquireInTurn(Ticket, UUID, Duration)} locking the key an advisory key text names. The
   * default: with {@code null} the plain {@code acquireInTurn}; with a text, refused as {@link
   * #acquire(String, String, UUID, String, Duration)} refuses it.
   *
   * @param ticket the writer's ticket
   * @param advisoryKey the advisory key text, or {@code null}
   * @param holderToken the holder token minted for this acquire
   * @param ttl as for {@link #acquire(String, UUID, String, Duration)}
   * @return the lease, or busy with the ticket's place
   * @throws IllegalArgumentException when the store takes no advisory key text
   */
  default Turn acquireInTurn(Ticket ticket, String advisoryKey, UUID holderToken, Duration ttl) {
    if (advisoryKey != null) {
      throw noAdvisoryKey(this, ticket.fenceName(), advisoryKey);
    }
    return acquireInTurn(ticket, holderToken, ttl);
  }

  private static IllegalArgumentException noAdvisoryKey(
      LeaseStore store, String fenceName, String advisoryKey) {
    return new IllegalArgumentException(
        "writer-fence: fence '"
            + fenceName
            + "' names advisory key '"
            + advisoryKey
            + "', but its store ("
            + store
            + ") takes no advisory key: only the advisory backend (backend=advisory) locks one."
            + " Use that backend, or drop the advisory key; the guarded code does not run");
  }

  /**
   * @param fenceName the fence name
   * @return the fence's row as operators see it, or empty when the name was never acquired
   */
  Optional<LeaseStatus> status(String fenceName);

  /**
   * @return every fence's row, ordered by fence name
   */
  List<LeaseStatus> statusAll();

  /**
   * @return whether this store keeps a queue of waiters; {@code false} (the default): the queue's
   *     methods fall back as their defaults say
   */
  default boolean keepsQueue() {
    return false;
  }

  /**
   * One poll of a queued writer: takes or refreshes its ticket and, when it is the ticket's turn
   * (the head of the queue, or the released lease is being kept for it), tries once to take the
   * lease; a granted ticket leaves the queue. The holder token that holds a live lease gets it
   * back, as from {@link #acquire}. The default, for a store without a queue: one {@link #acquire}
   * with the ticket's fence name and label; the priority plays no part.
   *
   * @param ticket the writer's ticket, the same waiter token for every poll of one wait
   * @param holderToken the holder token minted for this acquire
   * @param ttl as for {@link #acquire(String, UUID, String, Duration)}
   * @return the lease, or busy with the ticket's place
   */
  default Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl) {
    return acquire(ticket.fenceName(), holderToken, ticket.holderLabel(), ttl)
        .map(lease -> Turn.granted(lease, 0))
        .orElse(Turn.BUSY_UNQUEUED);
  }

  /**
   * One poll of a queued writer that says its head lapse: as {@link #acquireInTurn(Ticket, UUID,
   * Duration)}, and while the ticket is the head of the queue and the lease is free, the ticket is
   * passed over (it loses its place, and the lease goes to the next ticket) when it has not taken
   * the lease within {@code headLapse} of the lease becoming free or of its own last poll: a dead
   * or paused head then holds the queue up for that long, not for the ticket's whole lapse. The
   * writer must poll again within its head lapse while it is the head. The default, for a store
   * without head lapses: {@link #acquireInTurn(Ticket, UUID, Duration)}, where a head lapses only
   * with its ticket.
   *
   * @param ticket the writer's ticket, the same waiter token for every poll of one wait
   * @param holderToken the holder token minted for this acquire
   * @param ttl as for {@link #acquire(String, UUID, String, Duration)}
   * @param headLapse how soon the writer polls again at the latest while at the head: whole
   *     milliseconds from 1 ms to 60 s; more than the ticket's lapse counts as the lapse
   * @return the lease, or busy with the ticket's place
   * @throws IllegalArgumentException naming the head lapse when it breaks that rule
   */
  default Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl, Duration headLapse) {
    return acquireInTurn(ticket, holderToken, ttl);
  }

  /**
   * Takes or refreshes a ticket without trying for the lease: for a writer that waits, or for a
   * holder whose process has more writers waiting. A live ticket keeps its priority and arrival; a
   * lapsed one queues anew at the back. The default, for a store without a queue: nothing.
   *
   * @param ticket the ticket
   * @return the ticket's place (the lease is always empty); {@link Turn#BUSY_UNQUEUED} by default
   */
  default Turn enqueue(Ticket ticket) {
    return Turn.BUSY_UNQUEUED;
  }

  /**
   * Drops a ticket: the writer stops waiting. A released lease kept for it passes to the next
   * ticket. The default, for a store without a queue: nothing.
   *
   * @param fenceName the ticket's fence name
   * @param waiterToken the ticket's waiter token
   * @return {@code true} when a ticket was dropped; {@code false} by default
   */
  default boolean leaveQueue(String fenceName, UUID waiterToken) {
    return false;
  }

  /**
   * @param fenceName the fence name
   * @return the fence's tickets as operators see them: live ones head first, then lapsed ones not
   *     yet cleared; empty by default
   */
  default List<QueuedWaiter> queue(String fenceName) {
    return List.of();
  }

  /**
   * Opens a signal of releases that found waiters, for a fence whose queued writers should poll at
   * once when the lease is freed rather than on their schedule ({@code queue.listen}). The caller
   * closes it.
   *
   * @return a new signal; empty (the default) when this store has none
   */
  default Optional<ReleaseSignal> openReleaseSignal() {
    return Optional.empty();
  }

  /**
   * Opens a signal of releases as {@link #openReleaseSignal()} does, listening on a direct
   * connection of its own instead of one of the store's data source ({@code queue.listen-url}).
   *
   * @param direct where to listen, never {@code null}
   * @return a new signal; by default what {@link #openReleaseSignal()} answers
   */
  default Optional<ReleaseSignal> openReleaseSignal(ReleaseSignal.Direct direct) {
    return openReleaseSignal();
  }

  /**
   * The exclusion domain this store grants leases in, as a name that every store reaching the same
   * leases computes alike, in any copy of core in the JVM. A fenced call joins a hold of its fence
   * name on its thread when the hold's store is equal to its own or names the same domain. May ask
   * the database once; never throws.
   *
   * @return the domain's name, or empty when this store cannot name it (the default): then only
   *     holds of an equal store are joined
   */
  default Optional<String> exclusionDomain() {
    return Optional.empty();
  }

  /**
   * Ends what the store holds of its own and refuses later acquires where the store keeps state
   * (the advisory backend closes its pinned connections, so the server frees their locks). Does not
   * close the DataSource. Idempotent; the default, for a store that holds nothing of its own, does
   * nothing.
   */
  @Override
  default void close() {}
}
