package dev.writerfence.context;

import dev.writerfence.FenceLease;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
 * <p>Only the calling thread reads or changes its own stack, so no locking is needed.
 */
public final class HeldFences {
  private static final ThreadLocal<Deque<Held>> STACK = ThreadLocal.withInitial(ArrayDeque::new);

  /** One hold: the domain its lease belongs to, and the lease. */
  private record Held(Object domain, FenceLease lease) {}

  private HeldFences() {}

  /**
   * @param fenceName the fence name
   * @return the innermost valid lease this thread holds on that name, in any domain
   */
  public static Optional<FenceLease> find(String fenceName) {
    for (Held held : STACK.get()) {
      if (held.lease().fenceName().equals(fenceName) && held.lease().isValid()) {
        return Optional.of(held.lease());
      }
    }
    return Optional.empty();
  }

  /**
   * @param domain the exclusion domain (the lease store), compared with {@code equals}
   * @param fenceName the fence name
   * @return the innermost valid lease this thread holds on that name in that domain
   */
  public static Optional<FenceLease> find(Object domain, String fenceName) {
    for (Held held : STACK.get()) {
      if (held.lease().fenceName().equals(fenceName)
          && held.lease().isValid()
          && held.domain().equals(domain)) {
        return Optional.of(held.lease());
      }
    }
    return Optional.empty();
  }

  /**
   * @return {@code true} when this thread holds any valid lease
   */
  public static boolean holdsAny() {
    for (Held held : STACK.get()) {
      if (held.lease().isValid()) {
        return true;
      }
    }
    return false;
  }

  /**
   * @return the valid leases this thread holds, innermost first
   */
  public static List<FenceLease> held() {
    List<FenceLease> leases = new ArrayList<>();
    for (Held held : STACK.get()) {
      if (held.lease().isValid()) {
        leases.add(held.lease());
      }
    }
    return List.copyOf(leases);
  }

  /**
   * Records that this thread now holds {@code lease}.
   *
   * @param domain the exclusion domain the lease belongs to (the lease store); never {@code null}
   * @param lease the acquired lease; never {@code null}
   */
  public static void push(Object domain, FenceLease lease) {
    if (domain == null || lease == null) {
      throw new NullPointerException("domain and lease are required");
    }
    STACK.get().push(new Held(domain, lease));
  }

  /**
   * Forgets {@code lease} for this thread, valid or not. A lease that was never pushed is ignored.
   *
   * @param lease a lease pushed earlier by this thread
   */
  public static void pop(FenceLease lease) {
    Deque<Held> stack = STACK.get();
    stack.removeIf(held -> held.lease() == lease);
    if (stack.isEmpty()) {
      STACK.remove();
    }
  }
}
