package dev.writerfence.benchmarks.weaving;

import dev.writerfence.FenceLease;
import dev.writerfence.store.LeaseStatus;
import dev.writerfence.store.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * A lease store that grants every acquire at once and sends nothing anywhere: what remains of a
 * fenced call is the weaving and the fence's own bookkeeping.
 */
public final class NoopLeaseStore implements LeaseStore {
  private static final Instant EPOCH = Instant.EPOCH;

  @Override
  public Optional<FenceLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    return Optional.of(
        new FenceLease(fenceName, holderToken, holderLabel, 1, EPOCH, Instant.MAX, ttl));
  }

  @Override
  public Optional<Instant> renew(FenceLease lease, Duration ttl) {
    return Optional.of(Instant.MAX);
  }

  @Override
  public boolean release(FenceLease lease) {
    return true;
  }

  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    return Optional.empty();
  }

  @Override
  public List<LeaseStatus> statusAll() {
    return List.of();
  }
}
