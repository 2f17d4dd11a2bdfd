package dev.writerfence.store.rpc;

import dev.writerfence.FencingTokens;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.store.jdbc.SqlErrors;
import dev.writerfence.store.jdbc.Statements;
import dev.writerfence.store.lease.PgLeaseStore;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lease-RPC backend ({@code backend=lease-rpc}, ADR 57): drives an existing deployment's
 * acquire/release function pair as it is, so a Java writer contends for the row the deployment's
 * other writers use, with no change on their side.
 *
 * <ul>
 *   <li><b>Signature check</b>: before the first acquire (and at each one until it passes once),
 *       both functions are looked up in {@code pg_proc}: each must take the contract's parameter
 *       names, and give a default to every parameter writer-fence may leave out. Otherwise acquire
 *       fails closed naming the function, the parameter and its {@code lease-rpc.*} setting, before
 *       anything is taken: a misnamed release would show only after a lease was taken, and leave
 *       the row held for its whole TTL.
 *   <li><b>Acquire</b>: one autocommit statement, {@code SELECT acquire(p_holder_token => ?,
 *       p_holder => ?, p_ttl_seconds => ?[, p_fence_name => ?])} with the names of the {@link
 *       LeaseRpcContract}. {@code true} is the lease, {@code false} (or null) is busy, never an
 *       exception. The holder label goes to the holder parameter (none given: the server's default
 *       stands); the TTL goes in whole seconds, since the existing function takes no less: a TTL
 *       that is not whole seconds (the ShedLock provider's) is rounded up, never down, and the
 *       lease's {@code expiresAt} says so. When the statement fails after it may have run (the
 *       answer was lost), the same holder token is released at once, best effort, so an acquire
 *       nobody learnt of does not keep the row for its whole TTL.
 *   <li><b>The fence name</b>: passed under {@link LeaseRpcContract#fenceNameParameter()} when that
 *       is set; by default it is not passed, so every fence name of this store is the one row the
 *       server's default names (as the deployment's own writers call it). Two fence names then
 *       exclude each other: over-exclusion, never less.
 *   <li><b>No renewal</b> ({@link #renewsLeases()} is {@code false}): the existing acquire takes
 *       only a free or expired row, so the same holder token cannot push its own expiry out. A
 *       lease lasts the TTL of its acquire; the fence is built without renewal, and a hold that
 *       outlasts its TTL turns lost (the fence's monotonic deadline), as a hold whose renewal
 *       failed.
 *   <li><b>No fencing token</b>: the existing table keeps no counter, so each lease carries {@link
 *       FencingTokens#NONE} and {@code FenceLease.fencingToken()} refuses with a clear error.
 *   <li><b>Release</b>: {@code SELECT release(p_holder_token => ?[, p_holder => ?][, p_fence_name
 *       => ?])}; the function frees the row only for the same holder token.
 *   <li><b>No status, no queue</b>: the deployment's table is closed to application roles (REVOKE
 *       ALL, row-level security without policies), so {@link #status} is empty and {@link
 *       #statusAll} lists nothing; an existing pair has no queue of waiters, so writers race with
 *       backoff as on the advisory lock.
 * </ul>
 *
 * <p>Two stores are equal when they use the same DataSource object and contract. Thread-safe.
 */
public final class LeaseRpcStore implements LeaseStore {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseRpcStore.class);

  private final DataSource dataSource;
  private final LeaseRpcContract contract;
  private final Statements statements;

  /** Set once both functions were found to take the contract's parameters; never unset. */
  private volatile boolean signaturesChecked;

  /**
   * @param dataSource where connections come from; connections of their own, never one bound to the
   *     caller's open transaction; never {@code null}
   * @param contract the function and parameter names; never {@code null}
   * @param queryTimeout how long one statement may take; at least 1 s, rounded up to whole seconds
   * @throws IllegalArgumentException naming the timeout when it is under 1 second
   */
  public LeaseRpcStore(DataSource dataSource, LeaseRpcContract contract, Duration queryTimeout) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.contract = Objects.requireNonNull(contract, "contract");
    // Only unsorted queries run through it: classify below names the function, not a schema.
    this.statements =
        new Statements(
            dataSource, contract.acquireFunction(), PgLeaseStore.queryTimeoutSeconds(queryTimeout));
  }

  /**
   * @return the function and parameter names this store calls
   */
  public LeaseRpcContract contract() {
    return contract;
  }

  /**
   * Calls the acquire function once.
   *
   * @param fenceName the fence name, already checked; passed only when the contract names its
   *     parameter
   * @param holderToken the holder token minted for this acquire
   * @param holderLabel the holder label, or {@code null} for the server's default
   * @param ttl whole milliseconds from 1 ms to one day; sent rounded up to whole seconds (1.2 s
   *     holds 2 s), the unit of the existing function
   * @return the lease (its fencing token is {@link FencingTokens#NONE}, its {@code expiresAt} the
   *     grant's time + the rounded TTL), or empty when busy
   * @throws WriterFenceUnavailableException when either function is missing, does not take the
   *     contract's parameters (checked before the first acquire; nothing is taken then), is not
   *     granted, or the database cannot answer
   */
  @Override
  public Optional<StoreLease> acquire(
      String fenceName, UUID holderToken, String holderLabel, Duration ttl) {
    // Rounded up to the existing function's whole seconds: a lease is never shorter than asked.
    long ttlSeconds = (FenceArguments.ttlMillis(ttl) + 999) / 1000;
    Duration held = Duration.ofSeconds(ttlSeconds);
    requireSignatures(fenceName);
    Call call =
        new Call(contract.acquireFunction()).arg(contract.holderTokenParameter(), holderToken);
    if (holderLabel != null) {
      call.arg(contract.holderParameter(), holderLabel);
    }
    call.arg(contract.ttlParameter(), (int) ttlSeconds);
    contract.fenceNameParameter().ifPresent(p -> call.arg(p, fenceName));
    try {
      return call.run(
          ", pg_catalog.now()",
          rs -> {
            if (!rs.getBoolean(1)) { // false, or a null the contract does not promise: busy
              return Optional.empty();
            }
            Instant now = rs.getObject(2, OffsetDateTime.class).toInstant();
            return Optional.of(
                new Lease(this, fenceName, holderToken, holderLabel, now, now.plus(held)));
          });
    } catch (SQLException e) {
      RuntimeException failure = classify(fenceName, "cannot take", contract.acquireFunction(), e);
      releaseAfterFailedAcquire(fenceName, holderToken, holderLabel, failure);
      throw failure;
    }
  }

  /**
   * Before the first acquire, checks that both functions take the contract's parameters: a misnamed
   * release would otherwise show only after a lease was taken, and leave the row held for its whole
   * TTL. Checked again at every acquire until it passes once.
   */
  private void requireSignatures(String fenceName) {
    if (signaturesChecked) {
      return;
    }
    Optional<String> mismatch;
    try (Connection connection = dataSource.getConnection()) {
      mismatch = LeaseRpcSignatures.mismatch(connection, contract);
    } catch (SQLException e) {
      throw classify(fenceName, "cannot check", contract.acquireFunction(), e);
    }
    if (mismatch.isPresent()) {
      throw new WriterFenceUnavailableException(
          fenceName, "writer-fence: fence '" + fenceName + "': " + mismatch.get(), null);
    }
    signaturesChecked = true;
  }

  /**
   * {@inheritDoc}
   *
   * @return {@code false}: the existing acquire takes only a free or expired row
   */
  @Override
  public boolean renewsLeases() {
    return false;
  }

  /**
   * @return empty: the deployment's table is closed to application roles
   */
  @Override
  public Optional<LeaseStatus> status(String fenceName) {
    return Optional.empty();
  }

  /**
   * @return nothing: the deployment's table is closed to application roles
   */
  @Override
  public List<LeaseStatus> statusAll() {
    return List.of();
  }

  private boolean release(String fenceName, UUID holderToken, String holderLabel) {
    Call call =
        new Call(contract.releaseFunction()).arg(contract.holderTokenParameter(), holderToken);
    if (holderLabel != null) {
      call.arg(contract.holderParameter(), holderLabel);
    }
    contract.fenceNameParameter().ifPresent(p -> call.arg(p, fenceName));
    try {
      return call.run("", rs -> rs.getBoolean(1));
    } catch (SQLException e) {
      throw classify(fenceName, "cannot release", contract.releaseFunction(), e);
    }
  }

  /**
   * A failed acquire statement may have committed before its answer was lost: releasing the same
   * holder token frees the row only if that happened, and costs nothing otherwise.
   */
  private void releaseAfterFailedAcquire(
      String fenceName, UUID holderToken, String holderLabel, RuntimeException failure) {
    if (failure instanceof IllegalArgumentException) {
      return; // the server refused the input: nothing was taken
    }
    try {
      if (release(fenceName, holderToken, holderLabel)) {
        LOG.warn(
            "writer-fence: fence '{}': an acquire whose answer was lost had taken the row; it is"
                + " released again",
            fenceName);
      }
    } catch (RuntimeException e) {
      failure.addSuppressed(e);
    }
  }

  /** A missing or forbidden function is named as such, not as writer-fence's schema. */
  private static RuntimeException classify(
      String fenceName, String doing, String function, SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String why =
        switch (state) {
          case "42883", "3F000" -> "is not installed, or has no parameters of these names";
          case "42501" -> "is not granted to this role (grant it EXECUTE)";
          default -> null;
        };
    if (why == null) {
      return SqlErrors.classify(fenceName, function, e);
    }
    return new WriterFenceUnavailableException(
        fenceName,
        "writer-fence: fence '"
            + fenceName
            + "': "
            + doing
            + " the lease: the lease-RPC function "
            + function
            + " "
            + why
            + " (SQLState "
            + state
            + "): "
            + e.getMessage()
            + "; check the lease-rpc.* settings against the deployment's functions",
        e);
  }

  /** One named-parameter call of a function, in one autocommit statement of its own. */
  private final class Call {
    private final StringBuilder text;
    private final List<Object> values = new ArrayList<>();

    /** Names are quoted: the contract allows only lower-case identifiers, reserved words too. */
    Call(String function) {
      text = new StringBuilder("SELECT \"").append(function.replace(".", "\".\"")).append("\"(");
    }

    Call arg(String parameter, Object value) {
      text.append(values.isEmpty() ? "" : ", ").append('"').append(parameter).append("\" => ?");
      values.add(value);
      return this;
    }

    /**
     * Runs the call with {@code more} columns after it, on an autocommit connection: the lease is
     * visible to every writer the moment acquire returns.
     *
     * @param answer reads the one row of the answer
     */
    <T> T run(String more, Statements.Answer<T> answer) throws SQLException {
      return statements.query(
          text + ")" + more,
          rs -> {
            rs.next();
            return answer.read(rs);
          },
          values.toArray());
    }
  }

  /** A lease the acquire function granted: released by its holder token. */
  private record Lease(
      LeaseRpcStore store,
      String fenceName,
      UUID holderToken,
      String holderLabel,
      Instant acquiredAt,
      Instant expiresAt)
      implements StoreLease {
    @Override
    public long fencingToken() {
      return FencingTokens.NONE;
    }

    /**
     * @throws UnsupportedOperationException always: the store {@linkplain
     *     LeaseRpcStore#renewsLeases() does not renew}, and a fence on it is built without renewal
     */
    @Override
    public Optional<Instant> renew(Duration ttl) {
      throw new UnsupportedOperationException(
          "writer-fence: fence '"
              + fenceName
              + "': the lease-RPC backend cannot renew a lease (the existing acquire takes only a"
              + " free or expired row)");
    }

    @Override
    public boolean release() {
      return store.release(fenceName, holderToken, holderLabel);
    }
  }

  /**
   * @param other another object
   * @return {@code true} when {@code other} is a {@code LeaseRpcStore} on the same DataSource
   *     object and contract
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof LeaseRpcStore that
        && dataSource == that.dataSource
        && contract.equals(that.contract);
  }

  @Override
  public int hashCode() {
    return 31 * System.identityHashCode(dataSource) + contract.hashCode();
  }

  @Override
  public String toString() {
    return "LeaseRpcStore[" + contract.acquireFunction() + ", " + contract.releaseFunction() + "]";
  }
}
