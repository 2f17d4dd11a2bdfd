package dev.writerfence.shedlock;

import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.TransientLeaseStoreException;
import dev.writerfence.store.lease.PgLeaseStore;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link ExtensibleLockProvider} on the writer-fence lease contract. Swap your provider
 * bean for this one and every {@code @SchedulerLock} job takes a lease row instead:
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(DataSource dataSource) {
 *   return new WriterFenceLockProvider(dataSource);
 * }
 * }</pre>
 *
 * <p>How ShedLock's settings map (see {@code docs/migrating-from-shedlock.md}):
 *
 * <ul>
 *   <li>The lock name is the fence name (1 to 200 characters), so a job and a {@code @WriterFenced}
 *       writer of the same name exclude each other.
 *   <li>{@code lockAtMostFor} is the lease's TTL, counted on the database clock, to the millisecond
 *       (a fraction of a millisecond rounded up; at least 1 ms, at most 1 day). A TTL that is not
 *       whole seconds needs SQL contract version 4 in the database; against an older contract such
 *       a lock fails with {@link WriterFenceUnavailableException} naming the version and how to
 *       upgrade. The lease is not renewed in the background: as in ShedLock, a job that outlasts it
 *       loses the lock (extend it, or wrap this provider in ShedLock's {@code
 *       KeepAliveLockProvider}).
 *   <li>{@code lockAtLeastFor}: an unlock before it has passed (monotonic clock, from the grant)
 *       keeps the lease until then, to the millisecond; after it, the lease is freed.
 *   <li>Every lock gets a holder token of its own (only it renews or releases the lease) and a
 *       fencing token; the job reads them through {@link #current(String)}.
 * </ul>
 *
 * <p>Fail closed: a lock that the database cannot confirm is never granted. {@link #lock} throws
 * {@link WriterFenceUnavailableException} when the database cannot answer (ShedLock then does not
 * run the job) and answers empty after a transient error it could not get past. Thread-safe.
 */
public final class WriterFenceLockProvider implements ExtensibleLockProvider {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceLockProvider.class);

  private final LeaseStore store;
  private final String holderLabel;
  private final Retry transientRetry;

  /**
   * A provider on the lease row in the default schema ({@code writer_fence}), with the default
   * holder label {@code shedlock@<host>:<pid>}.
   *
   * @param dataSource hands out connections of their own (autocommit is used) to a database where
   *     the contract is installed ({@link FenceSchema}); never {@code null}
   */
  public WriterFenceLockProvider(DataSource dataSource) {
    this(
        new PgLeaseStore(
            Objects.requireNonNull(dataSource, "dataSource"),
            FenceSchema.DEFAULT_SCHEMA,
            WriterFence.DEFAULT_QUERY_TIMEOUT),
        "shedlock");
  }

  /**
   * @param store the lease store, e.g. a {@link PgLeaseStore} on another schema; never {@code null}
   * @param holderLabel shown to operators as the holder of every lock this provider takes, with
   *     this instance appended ({@code label@host:pid}, {@link HolderLabel#of}): up to 200
   *     characters, no control or format characters; never {@code null}
   * @throws IllegalArgumentException naming the label when it breaks that rule
   */
  public WriterFenceLockProvider(LeaseStore store, String holderLabel) {
    this.store = Objects.requireNonNull(store, "store");
    this.holderLabel = HolderLabel.of(Objects.requireNonNull(holderLabel, "label"));
    // A transient error (serialization failure, deadlock, lock timeout) rolled the statement back,
    // so repeating it at once is safe.
    this.transientRetry =
        Retry.of(
            "writer-fence-shedlock",
            RetryConfig.custom()
                .maxAttempts(3)
                .waitDuration(Duration.ofMillis(20))
                .retryOnException(e -> e instanceof TransientLeaseStoreException)
                .build());
  }

  /**
   * Tries once to take the lease for a lock (transient errors repeated up to 3 times).
   *
   * @param configuration ShedLock's lock: name, {@code lockAtMostFor}, {@code lockAtLeastFor}
   * @return a {@link LeaseLock}, or empty when another live holder has the lease, or the database
   *     kept failing transiently
   * @throws IllegalArgumentException naming the value when the lock name is not a valid fence name
   *     or {@code lockAtMostFor} is over a day
   * @throws WriterFenceUnavailableException when the database cannot answer
   */
  @Override
  public Optional<SimpleLock> lock(LockConfiguration configuration) {
    String name = FenceArguments.fenceName(configuration.getName());
    Duration ttl = LockDurations.ttl(name, configuration.getLockAtMostFor());
    UUID holderToken = UUID.randomUUID();
    Optional<StoreLease> granted;
    try {
      // The same holder token again gets the same lease back, so a repeat cannot take two.
      granted = retried(() -> store.acquire(name, holderToken, holderLabel, ttl));
    } catch (TransientLeaseStoreException e) {
      LOG.warn("writer-fence: lock '{}' not taken: {}", name, e.getMessage());
      return Optional.empty();
    }
    return granted.map(
        grant -> {
          LockLease lease =
              new LockLease(
                  name,
                  holderToken,
                  holderLabel,
                  grant.fencingToken(),
                  grant.acquiredAt(),
                  grant.expiresAt());
          return new LeaseLock(configuration, this, grant, CurrentLocks.push(lease));
        });
  }

  /**
   * The lease of a lock the current thread took through any {@code WriterFenceLockProvider} and has
   * not unlocked, so a job can stamp its writes with the fencing token.
   *
   * @param lockName the lock name
   * @return the innermost such lease, or empty outside such a lock (also after an extend found the
   *     lease gone)
   */
  public static Optional<LockLease> current(String lockName) {
    return CurrentLocks.find(Objects.requireNonNull(lockName, "lockName"));
  }

  /**
   * @return the holder label of this provider's locks, as rows show it ({@code label@host:pid})
   */
  public String holderLabel() {
    return holderLabel;
  }

  /**
   * Runs one statement of a lock, repeating it after transient errors.
   *
   * @throws TransientLeaseStoreException when the last attempt failed transiently too
   */
  <T> T retried(Supplier<T> statement) {
    return transientRetry.executeSupplier(statement);
  }
}
