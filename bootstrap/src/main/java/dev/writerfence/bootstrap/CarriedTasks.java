package dev.writerfence.bootstrap;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which JDK task objects ({@code FutureTask}, {@code ForkJoinTask}, {@code Thread}) carry holds,
 * for the agent's advice in the JDK's executors and threads: a task created or started where the
 * thread holds a valid lease is {@linkplain #attach attached} to the {@link CarriedHolds} captured
 * there, and {@linkplain #restore restores} them where it runs. The JDK's classes are already
 * loaded when the agent starts, so the advice may not add a field to them: the state lives here, in
 * a map of weak identity keys (a task that is dropped unrun leaves no entry behind).
 *
 * <p>Only tasks created under a hold have an entry, so a thread holding nothing pays one
 * thread-local read per task it creates. A pool's worker thread never carries (see {@link
 * #startingWorker}): only its tasks do.
 */
public final class CarriedTasks {
  private static final ConcurrentHashMap<Key, CarriedHolds> CARRIED = new ConcurrentHashMap<>();
  private static final ReferenceQueue<Object> GONE = new ReferenceQueue<>();

  /** Per thread: how deep it is inside a pool's start of a worker thread. */
  private static final ThreadLocal<int[]> STARTING_WORKER = new ThreadLocal<>();

  private CarriedTasks() {}

  /**
   * Attaches the current thread's valid holds to {@code task}, unless it already carries some.
   *
   * @param task a task object; {@code null} is ignored
   */
  public static void attach(Object task) {
    if (task == null || !HeldFenceStack.holds(null)) {
      return; // the cost of a thread that holds nothing
    }
    expunge();
    CARRIED.putIfAbsent(new Key(task, GONE), CarriedHolds.capture());
  }

  /**
   * For {@code Thread.start}: attaches the current thread's holds to the thread being started,
   * unless a pool is starting it as a worker ({@link #startingWorker}), or it is a {@code
   * ForkJoinWorkerThread}, a {@code Timer}'s thread or another of the JDK's service threads (the
   * HTTP client's selector, the cleaner's), which would otherwise carry them into work of every
   * thread that later uses them.
   *
   * @param thread the thread being started; {@code null} is ignored
   */
  public static void starting(Thread thread) {
    if (thread == null || !HeldFenceStack.holds(null)) {
      return;
    }
    int[] depth = STARTING_WORKER.get();
    if ((depth != null && depth[0] > 0)
        || thread instanceof java.util.concurrent.ForkJoinWorkerThread
        || isServiceThread(thread.getClass().getName())) {
      return;
    }
    attach(thread);
  }

  private static boolean isServiceThread(String className) {
    return className.equals("java.util.TimerThread")
        || className.startsWith("jdk.internal.")
        || className.startsWith("sun.")
        || className.startsWith("java.lang.ref.");
  }

  /**
   * Marks the current thread as inside (or, with {@code false}, out of) a pool's start of a worker
   * thread, such as {@code ThreadPoolExecutor.addWorker}; calls nest.
   *
   * @param entering {@code true} on entry, {@code false} on exit
   */
  public static void startingWorker(boolean entering) {
    int[] depth = STARTING_WORKER.get();
    if (depth == null) {
      depth = new int[1];
      STARTING_WORKER.set(depth);
    }
    // Never below 0: an exit whose entry failed must not leave the next start of a worker unmarked.
    depth[0] = Math.max(0, depth[0] + (entering ? 1 : -1));
  }

  /**
   * Restores what {@code task} carries on the current thread, where the task runs. The entry stays
   * (a periodic task runs again) until the task is collected.
   *
   * @param task the task about to run; {@code null} restores nothing
   * @return the scope to close when the task's run ends; never {@code null}
   */
  public static CarriedHolds.Scope restore(Object task) {
    CarriedHolds carried = task == null || CARRIED.isEmpty() ? null : CARRIED.get(new Key(task));
    CarriedHolds.Scope holds = (carried == null ? CarriedHolds.none() : carried).restore();
    return task != null && HandOvers.recording() ? HandOvers.runningTask(task, holds) : holds;
  }

  /**
   * @param task a task object
   * @return what it carries; {@link CarriedHolds#none()} when nothing
   */
  public static CarriedHolds carried(Object task) {
    CarriedHolds carried = task == null ? null : CARRIED.get(new Key(task));
    return carried == null ? CarriedHolds.none() : carried;
  }

  /**
   * Wraps a task that the agent cannot follow by its object (a lambda or an application class
   * handed to {@code ThreadPoolExecutor.execute}) in one that restores the current thread's holds;
   * a JDK task that is followed by its object is attached instead and returned as it is.
   *
   * <p>While the audit records hand-overs ({@link HandOvers}), the submitter's call site is
   * remembered too: a JDK task by its object, any other task in a wrapper that marks the thread
   * running it.
   *
   * @param task the task handed off; {@code null} is returned as it is
   * @return {@code task}, or its wrapper when the thread holds a valid lease or the audit records
   *     hand-overs
   */
  public static Runnable handOff(Runnable task) {
    if (task == null) {
      return null;
    }
    Object from = HandOvers.submitter(); // null while the audit is off: no walk
    boolean holds = HeldFenceStack.holds(null);
    if (!holds && from == null) {
      return task;
    }
    if (task instanceof java.util.concurrent.FutureTask
        || task instanceof java.util.concurrent.ForkJoinTask) {
      if (holds && !CARRIED.containsKey(new Key(task))) {
        attach(task); // created outside the hold, handed off inside it
      }
      if (from != null) {
        HandOvers.remember(task, from);
      }
      return task;
    }
    CarriedHolds carried = holds ? CarriedHolds.capture() : CarriedHolds.none();
    if (from != null) {
      return () -> runHandedOver(from, carried, task);
    }
    return carried.isEmpty() ? task : () -> runCarrying(carried, task);
  }

  /** Runs a task handed off while the audit records hand-overs, marked with its submitter. */
  private static void runHandedOver(Object from, CarriedHolds carried, Runnable task) {
    CarriedHolds.Scope mark = HandOvers.runningFrom(from, () -> {});
    try {
      runCarrying(carried, task);
    } finally {
      mark.close();
    }
  }

  /**
   * Runs a task handed off through {@link #handOff} inside the holds it carries. This wrapper is
   * the agent's, in the host's executor: a failure to restore the holds must not keep the host's
   * task from running, so the task then runs without them, outside every carried hold ({@link
   * CarriedHolds#restore} puts all or none), and under audit enforce its writes are refused.
   */
  private static void runCarrying(CarriedHolds carried, Runnable task) {
    CarriedHolds.Scope scope;
    try {
      scope = carried.restore();
    } catch (RuntimeException | Error e) {
      scope = null; // runs unfenced: fails closed under audit enforce
    }
    try {
      task.run();
    } finally {
      if (scope != null) {
        scope.close();
      }
    }
  }

  private static void expunge() {
    for (Object gone; (gone = GONE.poll()) != null; ) {
      CARRIED.remove(gone);
    }
  }

  /** A weak key compared by the identity of its referent. */
  private static final class Key extends WeakReference<Object> {
    private final int hash;

    Key(Object referent, ReferenceQueue<Object> queue) {
      super(referent, queue);
      hash = System.identityHashCode(referent);
    }

    Key(Object referent) {
      super(referent);
      hash = System.identityHashCode(referent);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object other) {
      if (this == other) {
        return true;
      }
      if (!(other instanceof Key)) {
        return false;
      }
      Object mine = get();
      return mine != null && mine == ((Key) other).get();
    }
  }
}
