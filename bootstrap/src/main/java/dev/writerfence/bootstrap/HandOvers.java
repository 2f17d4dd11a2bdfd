package dev.writerfence.bootstrap;

import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.Supplier;

/**
 * Where the task a thread runs was handed over from, for the audit's call sites: while the audit is
 * on, the agent's advice in {@code ThreadPoolExecutor.execute} asks the audit for the submitting
 * thread's call site ({@link #submitter()}) and the task carries it to the thread that runs it
 * ({@link #current()}), so a write there whose own stack names only a library can name the
 * application frame that handed the work over.
 *
 * <p>Off (no finder installed) it costs one volatile read per hand-off and nothing per run.
 */
public final class HandOvers {
  /** The audit's finder of the current thread's call site; {@code null} while the audit is off. */
  private static volatile Supplier<Object> finder;

  /** The JDK tasks ({@code FutureTask}, {@code ForkJoinTask}) handed over, by identity. */
  private static final Map<Object, Object> SUBMITTED =
      Collections.synchronizedMap(new WeakHashMap<>());

  private static final ThreadLocal<Object> CURRENT = new ThreadLocal<>();

  private HandOvers() {}

  /**
   * @param siteFinder returns the current thread's call site (an object of the audit's, or {@code
   *     null} when the stack has none); {@code null} stops recording
   */
  public static void recordSubmitters(Supplier<Object> siteFinder) {
    finder = siteFinder;
  }

  /**
   * @return the current thread's call site as the audit finds it, or {@code null} while the audit
   *     is off, the stack has none or the finder failed
   */
  static Object submitter() {
    Supplier<Object> f = finder;
    if (f == null) {
      return null;
    }
    try {
      return f.get();
    } catch (RuntimeException | LinkageError e) {
      return null; // the hand-over goes on, holds carried, only its call site unnamed
    }
  }

  /**
   * @return {@code true} while the audit records where tasks were handed over from
   */
  static boolean recording() {
    return finder != null;
  }

  /**
   * @param task a JDK task followed by its object, handed over at {@code from}
   * @param from the submitter's call site; never {@code null}
   */
  static void remember(Object task, Object from) {
    SUBMITTED.put(task, from);
  }

  /**
   * Marks the current thread as running {@code task} until the returned scope is closed, when the
   * task was handed over ({@link #remember}).
   *
   * @param task the task about to run
   * @param inner the scope of the task's restored holds, closed first
   * @return {@code inner} when the task was not handed over, else a scope that also ends the mark
   */
  static CarriedHolds.Scope runningTask(Object task, CarriedHolds.Scope inner) {
    Object from;
    try {
      from = SUBMITTED.get(task);
    } catch (RuntimeException e) {
      return inner; // a task's own equals or hashCode failed: it runs, its holds restored, unnamed
    }
    return from == null ? inner : runningFrom(from, inner::close);
  }

  /**
   * @param from the submitter's call site
   * @param then run when the scope closes, before the mark ends
   * @return the scope that ends the mark, restoring the thread's previous one
   */
  static CarriedHolds.Scope runningFrom(Object from, Runnable then) {
    Object previous = CURRENT.get();
    CURRENT.set(from);
    return () -> {
      try {
        then.run();
      } finally {
        if (previous == null) {
          CURRENT.remove();
        } else {
          CURRENT.set(previous);
        }
      }
    };
  }

  /**
   * @return the call site the task running on this thread was handed over from, as {@link
   *     #submitter()} gave it; {@code null} when none
   */
  public static Object current() {
    return CURRENT.get();
  }
}
