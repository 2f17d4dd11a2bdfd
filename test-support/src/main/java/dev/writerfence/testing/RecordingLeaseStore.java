package dev.writerfence.testing;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link LeaseStore} that passes every call to a real store and records the holder tokens each
 * acquire and release carried, and when each renewal started, so a test can count round trips and
 * match tokens. The queue's calls pass through too: a poll ({@link #acquireInTurn}) counts as an
 * acquire attempt, a lease it grants is recorded like one from {@link #acquire}, the place each
 * answered is recorded, and reads of the queue are counted. Thread-safe.
 */
public final class RecordingLeaseStore implements LeaseStore {
  private final LeaseStore delegate;
  private final List<UUID> acquireTokens = new CopyOnWriteArrayList<>();
  private final List<UUID> releaseTokens = new CopyOnWriteArrayList<>();
  private final List<Long> renewStarts = new CopyOnWriteArrayList<>();
  private final AtomicInteger queueReads = new AtomicInteger();
  private final List<Integer> pollPlaces = new CopyOnWriteArrayList<>();

  /**
   * @param delegate the real store
   */
  public RecordingLeaseStore(LeaseStore delegate) {
    this.delegate = delegate;
  }

  /**
   * @return the holder token of every acquire attempt, in call order
   */
  public List<UUID> acquireTokens() {
    return List.copyOf(acquireTokens);
  }

  /**
   * @return the holder token of every release, in call order
   */
  public List<UUID> releaseTokens() {
    return List.copyOf(releaseTokens);
  }

  /**
   * @return the place every poll of the queue ({@link #acquireInTurn}) answered, in call order: 1
   *     for the head, 0 when it granted the lease
   */
  public List<Integer> pollPlaces() {
    return List.copyOf(pollPlaces);
  }

  /**
   * @return {@link System#nanoTime()} at the start of every renew call, in call order
   */
  public List<Long> renewStarts() {
    return List.copyOf(renewStarts);
  }

  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    return acquire(fenceName, null, holderToken, holderLabel, ttl);
  }

  @Override
  public Optional<StoreLease> acquire(
      String fenceName, String advisoryKey, UUID holderToken, String holderLabel, Duration ttl) {
    acquireTokens.add(holderToken);
    return delegate
        .acquire(fenceName, advisoryKey, holderToken, holderLabel, ttl)
        .map(lease -> new Recorded(lease, holderToken));
  }

  /**
   * @return how many times {@link #queue} was called, each one read of the queue
   */
  public int queueReads() {
    return queueReads.get();
  }

  @Override
  public boolean keepsQueue() {
    return delegate.keepsQueue();
  }

  @Override
  public boolean renewsLeases() {
    return delegate.renewsLeases();
  }

  @Override
  public Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl) {
    return acquireInTurn(ticket, null, holderToken, ttl);
  }

  @Override
  public Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl, Duration headLapse) {
    acquireTokens.add(holderToken);
    return polled(delegate.acquireInTurn(ticket, holderToken, ttl, headLapse), holderToken);
  }

  @Override
  public Turn acquireInTurn(Ticket ticket, String advisoryKey, UUID holderToken, Duration ttl) {
    acquireTokens.add(holderToken);
    return polled(delegate.acquireInTurn(ticket, advisoryKey, holderToken, ttl), holderToken);
  }

  private Turn polled(Turn turn, UUID holderToken) {
    pollPlaces.add(turn.place());
    return new Turn(
        turn.lease().map(lease -> new Recorded(lease, holderToken)), turn.place(), turn.waiters());
  }

  @Override
  public Turn enqueue(Ticket ticket) {
    return delegate.enqueue(ticket);
  }

  @Override
  public boolean leaveQueue(String fenceName, UUID waiterToken) {
    return delegate.leaveQueue(fenceName, waiterToken);
  }

  @Override
  public List<QueuedWaiter> queue(String fenceName) {
    queueReads.incrementAndGet();
    return delegate.queue(fenceName);
  }

  /** A handle of the real store whose renewals and releases are recorded. */
  private final class Recorded implements StoreLease {
    private final StoreLease delegate;
    private final UUID holderToken;

    Recorded(StoreLease delegate, UUID holderToken) {
      this.delegate = delegate;
      this.holderToken = holderToken;
    }

    @Override
    public long fencingToken() {
      return delegate.fencingToken();
    }

    @Override
    public Instant acquiredAt() {
      return delegate.acquiredAt();
    }

    @Override
    public Instant expiresAt() {
      return delegate.expiresAt();
    }

    @Override
    public Optional<Instant> renew(Duration ttl) {
      renewStarts.add(System.nanoTime());
      return delegate.renew(ttl);
    }

    @Override
    public boolean release() {
      releaseTokens.add(holderToken);
      return delegate.release();
    }
  }

  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    return delegate.status(fenceName);
  }

  @Override
  public List<LeaseStatus> statusAll() {
    return delegate.statusAll();
  }
}
