package dev.writerfence;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One turn per fence name among the threads of one {@link WriterFence}: only the thread holding a
 * name's turn asks the database for that name, and the release of its lease hands the turn to the
 * longest waiter at once (a fair {@link Semaphore}; a {@code tryAcquire}, which does not wait, may
 * take a turn that is free before a woken waiter does). Without it, writers of one process
 * contending for one name would each poll the database on their own backoff schedule, loading it
 * with busy answers while nobody takes the lease between the holder's release and the next poll
 * (ADR 16).
 *
 * <p>A turn is not owned by a thread: a lease released on another thread (the completion of a
 * {@code CompletionStage}) gives its turn back there. Names with neither a holder nor a waiter have
 * no entry, so the map does not grow with the number of names ever used.
 */
final class LocalTurns {
  private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();

  /** The threads of one fence name: the turn, and how many hold or wait for it. */
  private static final class Line {
    final Semaphore turn = new Semaphore(1, true);
    int users; // changed inside the map's compute only
    volatile Turn current; // the turn taken now, or null while it is free
  }

  /** A turn taken; given back by the first {@link #giveBack()}, on any thread. */
  static final class Turn {
    private final AtomicBoolean given = new AtomicBoolean();
    private final LocalTurns turns;
    private final String fenceName;
    private final Line line;
    private final Thread taker = Thread.currentThread();
    // The lease of an acquire or tryAcquire that went with this turn: its caller releases it.
    private volatile HeldLease callerHold;

    private Turn(LocalTurns turns, String fenceName, Line line) {
      this.turns = turns;
      this.fenceName = fenceName;
      this.line = line;
    }

    /** Records that the caller of an acquire or tryAcquire holds {@code lease} with this turn. */
    void heldByCaller(HeldLease lease) {
      this.callerHold = lease;
    }

    /** Hands the turn to the longest waiter, if any; later calls do nothing. */
    void giveBack() {
      if (!given.compareAndSet(false, true)) {
        return;
      }
      if (line.current == this) {
        line.current = null;
      }
      line.turn.release();
      turns.leave(fenceName, line);
    }
  }

  /**
   * Takes the turn of {@code fenceName}, waiting at most {@code waitNanos} for a thread of this
   * fence to give it back.
   *
   * <p>A thread that holds the turn itself through an acquire or tryAcquire not yet released does
   * not wait: it would wait for itself.
   *
   * @param waitNanos 0 or less: no wait at all
   * @return the turn, or {@code null} when another thread kept it through the wait, or this thread
   *     holds it
   * @throws InterruptedException when interrupted while waiting; no turn is taken
   */
  Turn take(String fenceName, long waitNanos) throws InterruptedException {
    Line line = lines.compute(fenceName, (name, l) -> enter(l));
    boolean taken = false;
    try {
      Turn held = line.current;
      boolean mine =
          held != null && held.taker == Thread.currentThread() && held.callerHold != null;
      taken =
          waitNanos <= 0 || mine
              ? line.turn.tryAcquire()
              : line.turn.tryAcquire(waitNanos, TimeUnit.NANOSECONDS);
    } finally {
      if (!taken) {
        leave(fenceName, line);
      }
    }
    if (!taken) {
      return null;
    }
    Turn turn = new Turn(this, fenceName, line);
    line.current = turn;
    return turn;
  }

  /**
   * @return fence names with a holder or a waiter in this fence (for tests)
   */
  int activeNames() {
    return lines.size();
  }

  private static Line enter(Line line) {
    Line l = line != null ? line : new Line();
    l.users++;
    return l;
  }

  private void leave(String fenceName, Line line) {
    lines.computeIfPresent(fenceName, (name, l) -> l == line && --l.users == 0 ? null : l);
  }
}
