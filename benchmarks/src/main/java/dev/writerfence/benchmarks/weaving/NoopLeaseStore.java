package dev.writerfence.benchmarks.weaving;

import dev.writerfence.LeaseStatus;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
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
  /** The one grant: renews and releases without a round trip, allocated once. */
  private static final Optional<StoreLease> GRANTED =
      Optional.of(
          new StoreLease() {
            @Override
            public long fencingToken() {
              return 1;
            }

            @Override
            public Instant acquiredAt() {
              return Instant.EPOCH;
            }

            @Override
            public Instant expiresAt() {
              return Instant.MAX;
            }

            @Override
            public Optional<Instant> renew(Duration ttl) {
              return Optional.of(Instant.MAX);
            }

            @Override
            public boolean release() {
              return true;
            }
          });

  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    return GRANTED;
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
