package dev.writerfence.demo;

import dev.writerfence.FenceLease;
import dev.writerfence.store.LeaseStatus;
import dev.writerfence.store.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A broken backend for {@code demo --break-fence}: it grants every acquire at once, with a token
 * counted in this process only. Writers on it are not excluded at all, so the demo's checks must
 * report overlaps and token-order violations: proof that the checks can fail.
 */
final class GrantingLeaseStore implements LeaseStore {
  private final AtomicLong tokens = new AtomicLong();

  @Override
  public Optional<FenceLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    Instant now = Instant.now();
    return Optional.of(
        new FenceLease(
            fenceName,
            holderToken,
            holderLabel,
            tokens.incrementAndGet(),
            now,
            now.plus(ttl),
            ttl));
  }

  @Override
  public Optional<Instant> renew(FenceLease lease, Duration ttl) {
    return Optional.of(Instant.now().plus(ttl));
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
