package dev.writerfence.testing;

import dev.writerfence.spi.FenceArguments;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.LeaseStatus;
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
  public Optional<String> exclusionDomain() {
    return delegate.exclusionDomain().map(domain -> domain + " names " + prefix + "*");
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
