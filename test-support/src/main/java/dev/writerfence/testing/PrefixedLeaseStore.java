package dev.writerfence.testing;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.Turn;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * A lease store that keeps every fence name under a prefix: the test-isolation seam. Code under
 * test asks for {@code corpus}, as in production; the database row is {@code <prefix>corpus}, so a
 * test never meets another test's lease nor a production holder of {@code corpus}, and the code
 * never passes a test-only name. Status answers use the names the code asked for.
 *
 * <p>The queue of waiters passes through the same way: a {@link Ticket} for {@code corpus} waits in
 * the queue of {@code <prefix>corpus}, and {@link #queue} answers with the name the code asked for.
 * The store keeps a queue exactly when the store it wraps does.
 */
public final class PrefixedLeaseStore implements LeaseStore {
  private final LeaseStore delegate;
  private final String prefix;

  /**
   * @param delegate the store that holds the rows; never {@code null}
   * @param prefix put before every fence name; not empty
   * @throws IllegalArgumentException when the prefix is empty or not a valid start of a fence name
   */
  public PrefixedLeaseStore(LeaseStore delegate, String prefix) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.prefix = FenceArguments.fenceName(Objects.requireNonNull(prefix, "prefix"));
  }

  /**
   * @return the prefix put before every fence name
   */
  public String prefix() {
    return prefix;
  }

  /**
   * @param fenceName a fence name as the code under test says it
   * @return the name of its row in the database
   * @throws IllegalArgumentException when the prefixed name breaks the rule of fence names (at most
   *     200 characters in all)
   */
  public String inDatabase(String fenceName) {
    return FenceArguments.fenceName(prefix + fenceName);
  }

  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    return delegate.acquire(inDatabase(fenceName), holderToken, holderLabel, ttl);
  }

  /**
   * Forwards an advisory key text unchanged: it names a lock shared with writers outside the test
   * on purpose, so the prefix does not isolate it.
   */
  @Override
  public Optional<StoreLease> acquire(
      String fenceName, String advisoryKey, UUID holderToken, String holderLabel, Duration ttl) {
    return delegate.acquire(inDatabase(fenceName), advisoryKey, holderToken, holderLabel, ttl);
  }

  @Override
  public Turn acquireInTurn(Ticket ticket, String advisoryKey, UUID holderToken, Duration ttl) {
    return delegate.acquireInTurn(inDatabase(ticket), advisoryKey, holderToken, ttl);
  }

  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    return delegate.status(inDatabase(fenceName)).map(this::asAsked);
  }

  @Override
  public List<LeaseStatus> statusAll() {
    return delegate.statusAll().stream()
        .filter(s -> s.fenceName().startsWith(prefix))
        .map(this::asAsked)
        .toList();
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
  public Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl, Duration headLapse) {
    return delegate.acquireInTurn(inDatabase(ticket), holderToken, ttl, headLapse);
  }

  @Override
  public Turn acquireInTurn(Ticket ticket, UUID holderToken, Duration ttl) {
    return delegate.acquireInTurn(inDatabase(ticket), holderToken, ttl);
  }

  @Override
  public Turn enqueue(Ticket ticket) {
    return delegate.enqueue(inDatabase(ticket));
  }

  @Override
  public boolean leaveQueue(String fenceName, UUID waiterToken) {
    return delegate.leaveQueue(inDatabase(fenceName), waiterToken);
  }

  @Override
  public List<QueuedWaiter> queue(String fenceName) {
    return delegate.queue(inDatabase(fenceName)).stream().map(this::asAsked).toList();
  }

  @Override
  public Optional<String> exclusionDomain() {
    return delegate.exclusionDomain().map(domain -> domain + " names " + prefix + "*");
  }

  /**
   * @param ticket a ticket as the code under test takes it
   * @return the same ticket in the queue of the prefixed name
   * @throws IllegalArgumentException when the prefixed name breaks the rule of fence names
   */
  private Ticket inDatabase(Ticket ticket) {
    return new Ticket(
        inDatabase(ticket.fenceName()),
        ticket.waiterToken(),
        ticket.holderLabel(),
        ticket.priority(),
        ticket.lapse());
  }

  private QueuedWaiter asAsked(QueuedWaiter row) {
    return new QueuedWaiter(
        row.fenceName().substring(prefix.length()),
        row.holderLabel(),
        row.priority(),
        row.waitingSince(),
        row.refreshedAt(),
        row.lapsesAt(),
        row.place(),
        row.reserved());
  }

  private LeaseStatus asAsked(LeaseStatus row) {
    return new LeaseStatus(
        row.fenceName().substring(prefix.length()),
        row.holderLabel(),
        row.fencingToken(),
        row.acquiredAt(),
        row.expiresAt(),
        row.secondsLeft(),
        row.state());
  }

  @Override
  public String toString() {
    return "PrefixedLeaseStore[" + prefix + ", " + delegate + "]";
  }
}
