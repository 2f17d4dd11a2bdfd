package dev.writerfence.context;

import dev.writerfence.FenceLease;
import dev.writerfence.FencingTokens;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.spi.LeaseStore;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The fences the current thread holds, innermost first: a stack per thread, pushed when a fenced
 * call acquires and popped when that call ends, whatever happened inside it. A nested fenced call
 * for a name already held in the same exclusion domain runs inside the existing hold, and code
 * inside a hold finds its lease here to stamp its writes with the fencing token.
 *
 * <p>Each entry pairs the lease with its domain: the lease store it came from. A hold is in a
 * store's domain when its store is equal to that store (for the lease-row backend, one DataSource
 * object and one schema), or when both stores {@linkplain LeaseStore#exclusionDomain() name} the
 * same domain (the same database and schema, reached through any DataSource object, by any copy of
 * core in the JVM): both then stand for the same lease row. A lease of the same fence name from
 * another domain is another fence.
 *
 * <p>Only a valid lease is held: {@link #find} (the hold a nested call joins) and {@link #holdsAny}
 * skip a lease that was released (for example by the guarded code itself) or lost. The code inside
 * a hold still sees its lease when it was lost: {@link #current} answers it until the call that
 * took it ends, so that its {@code checkValid()} throws {@code FenceLostException} with the reason.
 * A released lease is gone from both at once.
 *
 * <p>The stack itself is {@link HeldFenceStack}, which the agent places in the bootstrap class
 * loader: every copy of core in the JVM, and the agent's audit advice inside storage clients, then
 * share it (ADR 11). Only the calling thread reads or changes its own stack.
 */
public final class HeldFences {
  private HeldFences() {}

  /**
   * @param fenceName the fence name
   * @return the innermost valid hold this thread has on that name, in any domain, pushed by any
   *     copy of core (its lease is another copy's when that copy pushed it)
   */
  public static Optional<HeldFenceStack.Entry> find(String fenceName) {
    return find(null, fenceName);
  }

  /**
   * Whether a fenced call of {@code domain} for {@code fenceName} runs inside a hold this thread
   * has, and which: the one rule every weaving mode and every copy of core joins by.
   *
   * @param domain the exclusion domain (the lease store of the fence that would acquire); {@code
   *     null} for any
   * @param fenceName the fence name
   * @return the innermost valid hold this thread has on that name in that domain, pushed by any
   *     copy of core
   */
  public static Optional<HeldFenceStack.Entry> find(Object domain, String fenceName) {
    return first(HeldFenceStack.held(), domain, fenceName);
  }

  private static Optional<HeldFenceStack.Entry> first(
      List<HeldFenceStack.Entry> entries, Object domain, String fenceName) {
    for (HeldFenceStack.Entry entry : entries) {
      if (entry.fenceName().equals(fenceName) && (domain == null || inDomain(entry, domain))) {
        return Optional.of(entry);
      }
    }
    return Optional.empty();
  }

  /**
   * The hold that code on this thread runs inside, valid or lost: what {@code WriterFence.current}
   * answers. A lost lease stays until the fenced call that took it ends (a lost lease from {@code
   * acquire}: until it is released), so the code inside learns of the loss from the lease itself.
   * Where an older agent's held-fence stack is in the bootstrap loader, which drops lost entries,
   * only valid holds are answered.
   *
   * @param domain the exclusion domain (a lease store); {@code null} for any
   * @param fenceName the fence name
   * @return the innermost hold this thread is inside on that name in that domain, pushed by any
   *     copy of core, whose lease is valid or lost but not released; empty outside any hold
   */
  public static Optional<HeldFenceStack.Entry> current(Object domain, String fenceName) {
    List<HeldFenceStack.Entry> entries;
    try {
      entries = HeldFenceStack.current();
    } catch (NoSuchMethodError older) {
      // An older agent's stack in the bootstrap loader drops lost entries: valid holds only there.
      entries = HeldFenceStack.held();
    }
    return first(entries, domain, fenceName);
  }

  /**
   * @return {@code true} when this thread holds any valid lease, pushed by any copy of core
   */
  public static boolean holdsAny() {
    return HeldFenceStack.holds(null);
  }

  /**
   * @return the valid leases of this copy of core that this thread holds, innermost first
   */
  public static List<FenceLease> held() {
    List<FenceLease> leases = new ArrayList<>();
    for (HeldFenceStack.Entry entry : HeldFenceStack.held()) {
      if (entry.lease() instanceof FenceLease lease) {
        leases.add(lease);
      }
    }
    return List.copyOf(leases);
  }

  /**
   * Records that this thread now holds {@code lease}.
   *
   * @param domain the exclusion domain the lease belongs to (the lease store); never {@code null}
   * @param lease the acquired lease; never {@code null}
   * @throws NullPointerException when either is {@code null}
   */
  public static void push(Object domain, FenceLease lease) {
    if (domain == null || lease == null) {
      throw new NullPointerException("domain and lease are required");
    }
    HeldFenceStack.push(new Hold(domain, lease));
  }

  /**
   * Forgets {@code lease} for this thread, valid or not. A lease that was never pushed is ignored.
   *
   * @param lease a lease pushed earlier by this thread
   */
  public static void pop(FenceLease lease) {
    HeldFenceStack.pop(lease);
  }

  /**
   * An equal store is the same domain at no cost; a store of another object (or of another copy of
   * core) only when both name the same domain, which a store learns once from its database.
   */
  private static boolean inDomain(HeldFenceStack.Entry entry, Object domain) {
    if (entry.domain().equals(domain)) {
      return true;
    }
    if (!(domain instanceof LeaseStore store)) {
      return false;
    }
    String held = entry.domainName();
    return held != null && store.exclusionDomain().map(held::equals).orElse(false);
  }

  /** This copy of core's entry: the lease and its store, described in JDK types for the others. */
  private record Hold(Object domain, FenceLease lease) implements HeldFenceStack.Entry {
    @Override
    public String fenceName() {
      return lease.fenceName();
    }

    @Override
    public String domainName() {
      return domain instanceof LeaseStore store ? store.exclusionDomain().orElse(null) : null;
    }

    @Override
    public boolean isValid() {
      return lease.isValid();
    }

    @Override
    public String lostReason() {
      return lease.lostReason().orElse(null);
    }

    @Override
    public UUID holderToken() {
      return lease.holderToken();
    }

    @Override
    public String holderLabel() {
      return lease.holderLabel();
    }

    @Override
    public long fencingToken() {
      return lease.hasFencingToken() ? lease.fencingToken() : FencingTokens.NONE;
    }

    @Override
    public Instant acquiredAt() {
      return lease.acquiredAt();
    }

    @Override
    public Instant expiresAt() {
      return lease.expiresAt();
    }

    @Override
    public Duration ttl() {
      return lease.ttl();
    }
  }
}
