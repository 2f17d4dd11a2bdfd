package dev.writerfence;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How fast a fence's queue moves, as this fence's polls see it, and whether a waiter can still be
 * served within its budget ({@code queue.busy-early}, ADR 66).
 *
 * <p><b>The pace.</b> A wait's first poll answers place {@code p0} at time {@code t0}; a later poll
 * answering place {@code p < p0} at time {@code t} saw {@code n = p0 - p} hand-overs (the queue
 * moved {@code n} places) in {@code t - t0}, so the <i>turn</i>, the time one hand-over takes at
 * the current pace, is {@code T = (t - t0) / n}. A place that grows (a higher priority arrived)
 * starts the measurement again from there. The fence remembers the last turn measured for each name
 * for {@value #REMEMBERED_SECONDS} s, so the next waits of that name know the pace at their first
 * poll; a wait that measured its own uses its own. No hand-over seen yet: the pace is not known.
 *
 * <p><b>The estimate.</b> A waiter at place {@code p} gets the lease after the holder's remaining
 * time and {@code p - 1} more turns. The holder's remaining time is not known (the queue's answer
 * does not tell), so it is counted as nothing: the expected wait is {@code E = (p - 1) * T}, which
 * never overstates the wait on that account.
 *
 * <p><b>The decision.</b> A waiter gives up at once when {@code E > f * L}, {@code L} being what is
 * left of its budget and {@code f} the margin: {@value #MARGIN} once the turn was measured over two
 * hand-overs or more, 2 when over one. Why that margin: the poll that sees the queue move comes
 * some time after the move, so {@code T} overstates the real turn {@code T*}; under a steady pace
 * at most {@code n + 1} turns fit in the {@code n} that were counted ({@code t - t0 < (n + 1) T*}),
 * so {@code T < T* (n + 1) / n}, at most {@code 2 T*} for {@code n = 1} and {@code 1.5 T*} for
 * {@code n = 2}. With {@code f >= (n + 1) / n}, a waiter that gives up has {@code (p - 1) T* > L}:
 * under a steady pace it would not have been served within its budget. A pace that speeds up, or
 * waiters that leave early, only make {@code T} smaller.
 *
 * <p>Thread-safe: the remembered turns are shared by the fence's waits; one {@link Wait} is used by
 * one wait's polls, one at a time.
 */
final class QueuePace {
  /** The margin once the turn was measured over at least two hand-overs. */
  static final double MARGIN = 1.5;

  /** How long a turn measured by one wait informs the next waits of the name. */
  static final long REMEMBERED_SECONDS = 60;

  /** Fence names remembered at most: beyond that, only a wait's own measurement counts. */
  private static final int NAMES = 256;

  private final ConcurrentHashMap<String, Turn> turns = new ConcurrentHashMap<>();

  /**
   * A turn measured.
   *
   * @param nanos how long one hand-over took, in nanoseconds
   * @param handOvers how many hand-overs it was measured over, at least 1
   * @param atNanos when it was measured, by {@link System#nanoTime()}
   */
  record Turn(long nanos, int handOvers, long atNanos) {
    /** The margin {@code f} of the decision for a turn measured over this many hand-overs. */
    double margin() {
      return Math.max(MARGIN, (handOvers + 1) / (double) handOvers);
    }
  }

  /**
   * An estimate that the budget cannot be met.
   *
   * @param place the waiter's place, 1 for the head
   * @param waiters the fence's live tickets, the waiter's own included
   * @param expected the expected wait {@code (place - 1) * turn}
   * @param turn the turn it was reckoned with
   */
  record Estimate(int place, int waiters, Duration expected, Turn turn) {}

  /**
   * @param fenceName the fence name the wait is for
   * @return the tracker of one wait's polls
   */
  Wait wait(String fenceName) {
    return new Wait(fenceName);
  }

  /** One wait's polls: its own measurement of the pace, and the decision at each poll. */
  final class Wait {
    private final String fenceName;
    private int firstPlace = -1;
    private long firstNanos;
    private Turn own; // measured by this wait; null: none yet

    private Wait(String fenceName) {
      this.fenceName = fenceName;
    }

    /**
     * A poll answered busy at {@code place}: learns the pace from it and decides.
     *
     * @param place the place the poll answered, 1 for the head; 0 from a store without a queue
     * @param waiters the fence's live tickets at that poll
     * @param nowNanos when it answered, by {@link System#nanoTime()}
     * @param deadlineNanos when the call's budget ends, by {@link System#nanoTime()}
     * @return the estimate when the waiter should give up now; {@code null} to wait on (always
     *     while the pace is not known)
     */
    Estimate giveUp(int place, int waiters, long nowNanos, long deadlineNanos) {
      if (place < 1) {
        return null;
      }
      learn(place, nowNanos);
      Turn turn = own != null ? own : remembered(nowNanos);
      if (turn == null || place == 1) {
        return null;
      }
      double expectedNanos = (place - 1) * (double) turn.nanos();
      long leftNanos = Math.max(0, deadlineNanos - nowNanos);
      if (expectedNanos <= turn.margin() * leftNanos) {
        return null;
      }
      return new Estimate(
          place, waiters, Duration.ofNanos((long) Math.min(expectedNanos, Long.MAX_VALUE)), turn);
    }

    private void learn(int place, long nowNanos) {
      if (firstPlace < 0 || place > firstPlace) { // first, or pushed back by higher priorities
        firstPlace = place;
        firstNanos = nowNanos;
        return;
      }
      int passed = firstPlace - place;
      if (passed > 0) {
        own = new Turn((nowNanos - firstNanos) / passed, passed, nowNanos);
        if (turns.size() < NAMES || turns.containsKey(fenceName)) {
          turns.put(fenceName, own);
        }
      }
    }

    private Turn remembered(long nowNanos) {
      Turn t = turns.get(fenceName);
      if (t == null) {
        return null;
      }
      if (nowNanos - t.atNanos() > REMEMBERED_SECONDS * 1_000_000_000L) {
        turns.remove(fenceName, t);
        return null;
      }
      return t;
    }
  }
}
