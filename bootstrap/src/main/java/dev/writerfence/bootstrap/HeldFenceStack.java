package dev.writerfence.bootstrap;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The fences the current thread holds, innermost first: pushed when a fenced call acquires and
 * popped when that call ends. Entries speak JDK types only, so that copies of core loaded by
 * different class loaders (the application's, the agent's relocated one) share this one stack when
 * the agent has placed it in the bootstrap class loader, and each can read the others' holds: to
 * join them, and to show their leases.
 *
 * <p>An entry counts as held only while it {@linkplain Entry#isValid() is valid}: a lease that was
 * released or lost (renewal failed, or the TTL ran out) is not held, so no fenced call joins it and
 * the audit does not count a write under it ({@link #find}, {@link #holds}, {@link #held}). A lost
 * lease still belongs to the call that took it, though: its entry stays, and {@link #current} shows
 * it, until that call ends (or, for a lease from {@code acquire}, until it is released), so code
 * inside the call that asks for its lease gets the lost one and learns why from it. A released
 * entry ({@link Entry#isReleased()}) is dropped by the next {@link #push}, {@link #held()} or
 * {@link #current()} of the thread, if its call has not popped it already: a lease from {@code
 * acquire} that is released on another thread has no call end on this one. Released is final, so a
 * dropped entry could never count again. Only the calling thread reads or changes its own stack, so
 * no locking is needed.
 */
public final class HeldFenceStack {
  /** Unset on a thread that holds nothing, so asking costs one thread-local read, no allocation. */
  private static final ThreadLocal<Deque<Entry>> STACK = new ThreadLocal<>();

  private static final Object FIRST_HOLD_LOCK = new Object();
  private static volatile Runnable firstHold;
  private static Thread runningFirstHold; // guarded by FIRST_HOLD_LOCK

  /**
   * Sets work to run once, on the thread recording the first hold of this JVM, before that hold is
   * recorded: the agent defers there what only matters once something is held (carrying holds to
   * handed-off tasks). Threads recording a hold meanwhile wait until it has run. The action must
   * not throw; a hold recorded by the action's own thread while it runs does not run it again.
   *
   * @param action the work, or {@code null} to clear it
   */
  public static void beforeFirstHold(Runnable action) {
    firstHold = action;
  }

  private static void runFirstHold() {
    synchronized (FIRST_HOLD_LOCK) {
      Runnable action = firstHold;
      if (action == null || runningFirstHold == Thread.currentThread()) {
        return;
      }
      runningFirstHold = Thread.currentThread();
      try {
        action.run();
      } finally {
        firstHold = null;
        runningFirstHold = null;
      }
    }
  }

  private HeldFenceStack() {}

  /** One hold, as the copy of core that pushed it describes it. Times are the database's clock. */
  public interface Entry {
    /**
     * @return the fence name; never {@code null}
     */
    String fenceName();

    /**
     * @return the exclusion domain the lease belongs to (its lease store), compared with {@code
     *     equals} by the copy of core that pushed it; never {@code null}
     */
    Object domain();

    /**
     * @return the exclusion domain as a name that every copy of core computes alike for the same
     *     database and schema, so a copy can tell that another copy's hold is on its own lease row;
     *     {@code null} when it cannot be named (then only an equal {@link #domain()} joins)
     */
    String domainName();

    /**
     * @return the lease object of the copy of core that pushed it; never {@code null}
     */
    Object lease();

    /**
     * @return {@code true} while the lease is held (not released, not lost)
     */
    boolean isValid();

    /**
     * @return why the lease was lost, or {@code null} while it is not lost
     */
    String lostReason();

    /**
     * Whether the hold was given back: its lease released (by the end of its call, or early). A
     * lease that was lost and is not released yet is not: the call that took it still runs inside
     * it, and {@link HeldFenceStack#current()} still shows it.
     *
     * @return {@code true} once the lease was released; the default, for a copy of core that does
     *     not tell, is {@code true} when the lease is neither valid nor lost
     */
    default boolean isReleased() {
      return !isValid() && lostReason() == null;
    }

    /**
     * @return the holder token minted for the acquire; never {@code null}
     */
    UUID holderToken();

    /**
     * @return the holder label, or {@code null}
     */
    String holderLabel();

    /**
     * @return the fencing token, at least 1
     */
    long fencingToken();

    /**
     * @return when the lease was granted; never {@code null}
     */
    Instant acquiredAt();

    /**
     * @return the latest confirmed expiry; never {@code null}
     */
    Instant expiresAt();

    /**
     * @return the TTL the lease was acquired with; never {@code null}
     */
    Duration ttl();

    /**
     * Asks to be told once when the lease is lost (not when it is released): {@code callback} gets
     * the reason, on a thread of the copy of core that keeps the lease, or on the calling thread
     * before this returns when the lease is lost already. A copy of core that cannot tell answers
     * {@code null}.
     *
     * @param callback receives why the lease was lost; never {@code null}
     * @return cancels the request: {@code true} when {@code callback} was dropped before it ran;
     *     {@code null} when this entry cannot tell of a loss
     */
    default BooleanSupplier onLost(Consumer<String> callback) {
      return null;
    }

    /**
     * Who took the hold, for the audit's writer map: the fenced method for a woven or agent-fenced
     * call ({@code com.acme.Uploader.upload(String)}), or the first frame outside writer-fence's
     * own packages that called the Java API ({@code com.acme.Main.main(Main.java:20)}). A hold
     * carried to another thread answers the same as on the thread that took it.
     *
     * @return who took the hold, or {@code null} when the copy of core that pushed it does not tell
     */
    default String takenBy() {
      return null;
    }
  }

  /**
   * Records that this thread now holds {@code entry}'s lease, and drops the entries of leases that
   * were released (the entries of lost leases stay until their calls end).
   *
   * @param entry the hold; never {@code null}
   * @throws NullPointerException when {@code entry} is {@code null}
   */
  public static void push(Entry entry) {
    if (entry == null) {
      throw new NullPointerException("entry is required");
    }
    if (firstHold != null) {
      runFirstHold();
    }
    Deque<Entry> stack = STACK.get();
    if (stack == null) {
      stack = new ArrayDeque<>();
      STACK.set(stack);
    }
    stack.removeIf(Entry::isReleased);
    stack.push(entry);
  }

  /**
   * Forgets the innermost entry of {@code lease} (compared by identity), valid or not. A lease that
   * was never pushed is ignored.
   *
   * @param lease a lease pushed earlier by this thread, or the entry pushed for it (an entry that
   *     is its copy of core's own record of the hold need not make a lease object to be popped)
   */
  public static void pop(Object lease) {
    Deque<Entry> stack = STACK.get();
    if (stack == null) {
      return;
    }
    for (Iterator<Entry> it = stack.iterator(); it.hasNext(); ) {
      Entry entry = it.next();
      if (entry == lease || entry.lease() == lease) {
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
   * @return the innermost valid hold of this thread on that name (or on any name), or {@code null}
   *     when it holds none
   */
  public static Entry find(String fenceName) {
    Deque<Entry> stack = STACK.get();
    if (stack == null) {
      return null;
    }
    for (Entry entry : stack) {
      if ((fenceName == null || entry.fenceName().equals(fenceName)) && entry.isValid()) {
        return entry;
      }
    }
    if (stack.isEmpty()) {
      STACK.remove();
    }
    return null;
  }

  /**
   * @param fenceName a fence name, or {@code null} for any
   * @return {@code true} when this thread holds a valid lease on that name (or on any name)
   */
  public static boolean holds(String fenceName) {
    return find(fenceName) != null;
  }

  /**
   * Drops the entries of released leases, and answers those that are valid.
   *
   * @return the valid entries of this thread, innermost first; never {@code null}
   */
  public static List<Entry> held() {
    return entries(true);
  }

  /**
   * The holds this thread is inside: each valid one, and each lost one whose call has not ended yet
   * (a lost lease from {@code acquire}: until it is released). Drops the entries of released
   * leases. For what a hold's own code sees ({@code WriterFence.current}); whether a lease counts
   * as held (to join it, for the audit) is {@link #held()}.
   *
   * @return the entries of this thread that are valid or lost, not released, innermost first; never
   *     {@code null}
   */
  public static List<Entry> current() {
    return entries(false);
  }

  private static List<Entry> entries(boolean validOnly) {
    Deque<Entry> stack = STACK.get();
    if (stack == null) {
      return List.of();
    }
    List<Entry> entries = new ArrayList<>();
    for (Iterator<Entry> it = stack.iterator(); it.hasNext(); ) {
      Entry entry = it.next();
      if (entry.isValid()) {
        entries.add(entry);
      } else if (entry.isReleased()) {
        it.remove();
      } else if (!validOnly) {
        entries.add(entry); // lost, and its call still runs
      }
    }
    if (stack.isEmpty()) {
      STACK.remove();
    }
    return List.copyOf(entries);
  }
}
