package dev.writerfence.bootstrap;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * The holds of one thread, captured where work is handed to another thread and restored where that
 * work runs, so that the work runs inside its parent's hold: {@code WriterFence.current(name)}
 * gives the parent's lease there, the audit counts its writes as fenced and a fenced call of the
 * same name joins the hold. It is the one carrier every hand-off uses: the explicit wrappers of
 * core, the {@code ThreadLocalAccessor} that Micrometer's context-propagation (and through it
 * Reactor and Spring) drives, and the agent's advice in the JDK's executors and threads. It uses
 * the JDK only and lives beside {@link HeldFenceStack}, so advice inlined into the JDK's own
 * classes links against it.
 *
 * <p>What travels is the parent's entries themselves, not a copy of their state: a carried hold
 * counts exactly while the parent's lease is valid. Once the parent releases it (its fenced call
 * ended) or loses it, work still running with it is outside the hold, and its writes are unfenced;
 * a lost one is still shown by {@code WriterFence.current(name)} there, as lost, until the parent
 * releases it ({@link HeldFenceStack#current()}), so the work learns why from the lease. Capturing
 * costs nothing when the thread holds nothing ({@link #none()}).
 *
 * <p>Instances are immutable and may be restored on any number of threads, at once or in turn.
 */
public final class CarriedHolds {
  private static final HeldFenceStack.Entry[] NO_ENTRIES = new HeldFenceStack.Entry[0];
  private static final CarriedHolds NONE = new CarriedHolds(NO_ENTRIES);
  private static final Scope NOTHING_RESTORED = () -> {};

  private final HeldFenceStack.Entry[] entries; // outermost first

  private CarriedHolds(HeldFenceStack.Entry[] entries) {
    this.entries = entries;
  }

  /**
   * What a {@link #restore()} put on a thread; closing it takes exactly that off again. Close it
   * once, on the thread that restored, as the innermost open scope of that thread (try with
   * resources does both).
   */
  @FunctionalInterface
  public interface Scope extends AutoCloseable {
    /** Takes the restored holds off the thread; the thread's own holds stay. */
    @Override
    void close();
  }

  /**
   * @return the carrier of no hold: restoring it changes nothing
   */
  public static CarriedHolds none() {
    return NONE;
  }

  /**
   * Captures the valid holds of the current thread (of every copy of core), to carry them to work
   * that will run elsewhere.
   *
   * @return the captured holds; {@link #none()} when the thread holds no valid lease; never {@code
   *     null}
   */
  public static CarriedHolds capture() {
    if (!HeldFenceStack.holds(null)) {
      return NONE;
    }
    List<HeldFenceStack.Entry> held = HeldFenceStack.held(); // innermost first
    HeldFenceStack.Entry[] outermostFirst = new HeldFenceStack.Entry[held.size()];
    for (int i = 0; i < outermostFirst.length; i++) {
      outermostFirst[i] = held.get(held.size() - 1 - i);
    }
    return new CarriedHolds(outermostFirst);
  }

  /**
   * @return {@code true} when nothing was captured
   */
  public boolean isEmpty() {
    return entries.length == 0;
  }

  /**
   * @return {@code true} while at least one captured lease is still valid: work restoring this
   *     carrier then runs inside a hold
   */
  public boolean isValid() {
    for (HeldFenceStack.Entry entry : entries) {
      if (entry.isValid()) {
        return true;
      }
    }
    return false;
  }

  /**
   * @return the captured holds, innermost first, valid or not; never {@code null}
   */
  public List<HeldFenceStack.Entry> entries() {
    HeldFenceStack.Entry[] innermostFirst = new HeldFenceStack.Entry[entries.length];
    for (int i = 0; i < entries.length; i++) {
      innermostFirst[i] = entries[entries.length - 1 - i];
    }
    return List.of(innermostFirst);
  }

  /**
   * Puts the captured holds on the current thread, above the thread's own, until the returned scope
   * is closed. Holds no longer valid are not restored. All or none: when an entry fails (its copy
   * of core throws while it is asked whether it is valid), the holds put on the thread so far are
   * taken off again before the failure is thrown, so a caller that goes on without the holds runs
   * outside every carried hold, never inside a part of them.
   *
   * @return the scope to close when the carried work ends; never {@code null}
   * @throws RuntimeException or {@link Error} as an entry threw it, the thread's stack as before
   */
  public Scope restore() {
    if (entries.length == 0) {
      return NOTHING_RESTORED;
    }
    HeldFenceStack.Entry[] pushed = new HeldFenceStack.Entry[entries.length];
    int count = 0;
    try {
      for (HeldFenceStack.Entry entry : entries) {
        if (entry.isValid()) {
          HeldFenceStack.push(entry);
          pushed[count++] = entry;
        }
      }
    } catch (RuntimeException | Error e) {
      for (int i = count - 1; i >= 0; i--) {
        HeldFenceStack.pop(pushed[i]);
      }
      throw e;
    }
    if (count == 0) {
      return NOTHING_RESTORED;
    }
    int restored = count;
    return () -> {
      for (int i = restored - 1; i >= 0; i--) {
        HeldFenceStack.pop(pushed[i]);
      }
    };
  }

  /**
   * @param task the work to carry the holds to; never {@code null}
   * @return {@code task} itself when nothing was captured, else a task that runs {@code task}
   *     inside the captured holds
   * @throws NullPointerException when {@code task} is {@code null}
   */
  public Runnable wrap(Runnable task) {
    if (task == null) {
      throw new NullPointerException("task is required");
    }
    if (entries.length == 0) {
      return task;
    }
    return () -> {
      Scope scope = restore();
      try {
        task.run();
      } finally {
        scope.close();
      }
    };
  }

  /**
   * @param task the work to carry the holds to; never {@code null}
   * @param <V> what the task returns
   * @return {@code task} itself when nothing was captured, else a task that calls {@code task}
   *     inside the captured holds
   * @throws NullPointerException when {@code task} is {@code null}
   */
  public <V> Callable<V> wrap(Callable<V> task) {
    if (task == null) {
      throw new NullPointerException("task is required");
    }
    if (entries.length == 0) {
      return task;
    }
    return () -> {
      Scope scope = restore();
      try {
        return task.call();
      } finally {
        scope.close();
      }
    };
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("CarriedHolds[");
    for (int i = entries.length - 1; i >= 0; i--) {
      s.append(entries[i].fenceName()).append(i > 0 ? ", " : "");
    }
    return s.append(']').toString();
  }
}
