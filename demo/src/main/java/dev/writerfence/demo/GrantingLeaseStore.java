package dev.writerfence.demo;

import dev.writerfence.LeaseStatus;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
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
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    Instant now = Instant.now();
    return Optional.of(new Granted(tokens.incrementAndGet(), now, now.plus(ttl)));
  }

  /** A grant that renews and releases without asking anyone. */
  private record Granted(long fencingToken, Instant acquiredAt, Instant expiresAt)
      implements StoreLease {
    @Override
    public Optional<Instant> renew(Duration ttl) {
      return Optional.of(Instant.now().plus(ttl));
    }

    @Override
    public boolean release() {
      return true;
    }
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
