package dev.writerfence.context;

import dev.writerfence.FenceLease;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The fences the current thread holds, innermost last: a stack per thread, pushed when a fenced
 * call acquires and popped when it ends. A nested fenced call for a name already on the stack runs
 * inside the existing hold, and code inside a hold finds its lease here to stamp its writes with
 * the fencing token.
 *
 * <p>Only the calling thread reads or changes its own stack, so no locking is needed.
 */
public final class HeldFences {
  private static final ThreadLocal<Deque<FenceLease>> STACK =
      ThreadLocal.withInitial(ArrayDeque::new);

  private HeldFences() {}

  /**
   * @param fenceName the fence name
   * @return the innermost lease this thread holds on that name
   */
  public static Optional<FenceLease> find(String fenceName) {
    for (FenceLease lease : STACK.get()) {
      if (lease.fenceName().equals(fenceName)) {
        return Optional.of(lease);
      }
    }
    return Optional.empty();
  }

  /**
   * @return {@code true} when this thread holds any fence
   */
  public static boolean holdsAny() {
    return !STACK.get().isEmpty();
  }

  /**
   * @return the leases this thread holds, innermost first
   */
  public static List<FenceLease> held() {
    return List.copyOf(STACK.get());
  }

  /**
   * Records that this thread now holds {@code lease}.
   *
   * @param lease the acquired lease
   */
  public static void push(FenceLease lease) {
    STACK.get().push(lease);
  }

  /**
   * Forgets {@code lease} for this thread.
   *
   * @param lease a lease pushed earlier by this thread
   */
  public static void pop(FenceLease lease) {
    Deque<FenceLease> stack = STACK.get();
    stack.removeFirstOccurrence(lease);
    if (stack.isEmpty()) {
      STACK.remove();
    }
  }
}
