package dev.writerfence.spi;

import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.store.LeaseStatus;
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
 * <p>Implementations are thread-safe.
 */
public interface LeaseStore {

  /**
   * Tries once to take the lease.
   *
   * @param fenceName the fence name, already checked
   * @param holderToken the holder token minted for this acquire; the same token again while it
   *     holds the lease gets its current lease back
   * @param holderLabel the holder label, or {@code null}
   * @param ttl whole seconds from 1 to 86400
   * @return the lease's handle, which renews and releases it; empty when another live holder has it
   *     (busy)
   */
  Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl);

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
}
