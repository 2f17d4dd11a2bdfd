package dev.writerfence.bootstrap;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The fences the current thread holds, innermost first: pushed when a fenced call acquires and
 * popped when that call ends. Entries use JDK types only, so that copies of core loaded by
 * different class loaders share this one stack when the agent has placed it in the bootstrap class
 * loader.
 *
 * <p>An entry counts as held only while its validity check answers {@code true}: a lease that was
 * released or lost (renewal failed, or the TTL ran out) is not held, though its entry stays until
 * its call ends. Only the calling thread reads or changes its own stack, so no locking is needed.
 */
public final class HeldFenceStack {
  private static final ThreadLocal<Deque<Entry>> STACK = ThreadLocal.withInitial(ArrayDeque::new);

  private HeldFenceStack() {}

  /**
   * One hold.
   *
   * @param fenceName the fence name; never {@code null}
   * @param domain the exclusion domain the lease belongs to (its lease store), compared with {@code
   *     equals}; never {@code null}
   * @param lease the lease object of the copy of core that pushed it; never {@code null}
   * @param valid answers whether the lease is still held; never {@code null}
   */
  public record Entry(String fenceName, Object domain, Object lease, BooleanSupplier valid) {
    /**
     * @throws NullPointerException when any component is {@code null}
     */
    public Entry {
      if (fenceName == null || domain == null || lease == null || valid == null) {
        throw new NullPointerException("fenceName, domain, lease and valid are required");
      }
    }

    /**
     * @return {@code true} while the lease is held (not released, not lost)
     */
    public boolean isValid() {
      return valid.getAsBoolean();
    }
  }

  /**
   * Records that this thread now holds {@code entry}'s lease.
   *
   * @param entry the hold; never {@code null}
   */
  public static void push(Entry entry) {
    if (entry == null) {
      throw new NullPointerException("entry is required");
    }
    STACK.get().push(entry);
  }

  /**
   * Forgets the entry of {@code lease} (compared by identity), valid or not. A lease that was never
   * pushed is ignored.
   *
   * @param lease a lease pushed earlier by this thread
   */
  public static void pop(Object lease) {
    Deque<Entry> stack = STACK.get();
    for (Iterator<Entry> it = stack.iterator(); it.hasNext(); ) {
      if (it.next().lease() == lease) {
        it.remove();
        break;
      }
    }
    if (stack.isEmpty()) {
      STACK.remove();
    }
  }

  /**
   * @param fenceName a fence name, or {@code null} for any
   * @return {@code true} when this thread holds a valid lease on that name (or on any name)
   */
  public static boolean holds(String fenceName) {
    Deque<Entry> stack = STACK.get();
    for (Entry entry : stack) {
      if ((fenceName == null || entry.fenceName().equals(fenceName)) && entry.isValid()) {
        return true;
      }
    }
    if (stack.isEmpty()) {
      STACK.remove();
    }
    return false;
  }

  /**
   * @return the valid entries of this thread, innermost first; never {@code null}
   */
  public static List<Entry> held() {
    List<Entry> entries = new ArrayList<>();
    Deque<Entry> stack = STACK.get();
    for (Entry entry : stack) {
      if (entry.isValid()) {
        entries.add(entry);
      }
    }
    if (stack.isEmpty()) {
      STACK.remove();
    }
    return List.copyOf(entries);
  }
}
