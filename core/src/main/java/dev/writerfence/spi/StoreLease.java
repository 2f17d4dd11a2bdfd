package dev.writerfence.spi;

import dev.writerfence.WriterFenceUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * One lease as its backend granted it: the handle that {@link LeaseStore#acquire} returns, which
 * renews and releases itself. A backend keeps the state of one hold here (the advisory backend's
 * pinned connection), not in a map beside the store. The fence name, holder token, holder label and
 * TTL are the caller's own, given to {@code acquire}.
 *
 * <p>Like the store, each method makes at most one round trip and either answers or throws {@link
 * TransientLeaseStoreException} (may succeed when repeated), {@link
 * WriterFenceUnavailableException} (fail closed) or {@link IllegalArgumentException}. Thread-safe.
 */
public interface StoreLease {
  /**
   * @return the fencing token the backend issued: strictly greater than every token issued before
   *     for the fence name, at least 1; or {@link dev.writerfence.FencingTokens#NONE} from a
   *     backend that cannot mint one (the lease then refuses {@code fencingToken()})
   */
  long fencingToken();

  /**
   * @return when the lease was granted, database clock; never {@code null}
   */
  Instant acquiredAt();

  /**
   * @return when the lease may be taken over unless renewed, as the acquire set it (database
   *     clock); never {@code null}
   */
  Instant expiresAt();

  /**
   * Sets the expiry of the lease, while it is live and still this holder's, to now + {@code ttl}
   * (database clock). The TTL is counted from now, not added to the old expiry.
   *
   * <p>Only called when the store {@linkplain LeaseStore#renewsLeases() renews leases}.
   *
   * @param ttl as for {@link LeaseStore#acquire(String, java.util.UUID, String, Duration)}: whole
   *     milliseconds from 1 ms to one day
   * @return the new expiry, or empty when the lease is expired, taken over or released
   */
  Optional<Instant> renew(Duration ttl);

  /**
   * Frees the lease if, and only if, the backend still knows it as this holder's.
   *
   * @return {@code true} when freed; {@code false} when another holder has it or it is free (also
   *     for a second release of the same handle)
   */
  boolean release();
}
