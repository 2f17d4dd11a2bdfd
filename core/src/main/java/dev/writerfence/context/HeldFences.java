package dev.writerfence.context;

import dev.writerfence.FenceLease;
import dev.writerfence.bootstrap.HeldFenceStack;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The fences the current thread holds, innermost first: a stack per thread, pushed when a fenced
 * call acquires and popped when that call ends, whatever happened inside it. A nested fenced call
 * for a name already held in the same exclusion domain runs inside the existing hold, and code
 * inside a hold finds its lease here to stamp its writes with the fencing token.
 *
 * <p>Each entry pairs the lease with its domain: the lease store it came from, compared with {@code
 * equals} (for the lease-row backend, one DataSource object and one schema). A lease of the same
 * fence name from another domain is another fence. A lease that is no longer valid (released, for
 * example by the guarded code itself) is not held, though its entry stays until its call ends.
 *
 * <p>The stack itself is {@link HeldFenceStack}, which the agent places in the bootstrap class
 * loader: every copy of core in the JVM, and the agent's audit advice inside storage clients, then
 * share it (ADR 11). Only the calling thread reads or changes its own stack.
 */
public final class HeldFences {
  private HeldFences() {}

  /**
   * @param fenceName the fence name
   * @return the innermost valid lease this thread holds on that name, in any domain
   */
  public static Optional<FenceLease> find(String fenceName) {
    return find(null, fenceName);
  }

  /**
   * @param domain the exclusion domain (the lease store), compared with {@code equals}; {@code
   *     null} for any
   * @param fenceName the fence name
   * @return the innermost valid lease of this copy of core that this thread holds on that name in
   *     that domain
   */
  public static Optional<FenceLease> find(Object domain, String fenceName) {
    for (HeldFenceStack.Entry entry : HeldFenceStack.held()) {
      if (entry.fenceName().equals(fenceName)
          && entry.lease() instanceof FenceLease lease
          && (domain == null || entry.domain().equals(domain))) {
        return Optional.of(lease);
      }
    }
    return Optional.empty();
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
    HeldFenceStack.push(new HeldFenceStack.Entry(lease.fenceName(), domain, lease, lease::isValid));
  }

  /**
   * Forgets {@code lease} for this thread, valid or not. A lease that was never pushed is ignored.
   *
   * @param lease a lease pushed earlier by this thread
   */
  public static void pop(FenceLease lease) {
    HeldFenceStack.pop(lease);
  }
}
