package dev.writerfence;

import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.Ticket;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 *
 * <p>With a store that keeps a queue, the threads of one name wait in it as one waiter: the line
 * keeps one ticket (one waiter token) from the first poll of a wait until it is granted or the last
 * waiting thread gives up, and only the turn's holder polls with it. A thread that takes the turn
 * after a grant polls anew, so this process queues behind the other processes' waiters, and the
 * release, which keeps the lease for the head of the queue, lets none of this process's threads
 * pass them (ADR 37).
 */
final class LocalTurns {
  private static final Logger LOG = LoggerFactory.getLogger(LocalTurns.class);

  private final ConcurrentHashMap<String, Line> lines = new ConcurrentHashMap<>();
  private final LeaseStore store;
  private final Duration lapse;

  LocalTurns(LeaseStore store, Duration lapse) {
    this.store = store;
    this.lapse = lapse;
  }

  /** The threads of one fence name: the turn, and how many hold or wait for it. */
  private static final class Line {
    final Semaphore turn = new Semaphore(1, true);
    volatile int users; // changed inside the map's compute only
    volatile Turn current; // the turn taken now, or null while it is free
    // The process's ticket in the store's queue: read and changed by the turn's holder only.
    UUID waiterToken;
    Ticket ticket;
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

    /** Whether this process holds a ticket in the queue for the name. */
    boolean hasTicket() {
      return line.waiterToken != null;
    }

    /**
     * The process's ticket for the name, taken now if it has none; the first poller's label and
     * priority stay with the ticket while it waits.
     */
    Ticket ticket(String label, int priority, Duration ttl) {
      Ticket t = line.ticket;
      if (t == null) {
        line.waiterToken = UUID.randomUUID();
        t = new Ticket(fenceName, line.waiterToken, label, priority, lapse(ttl));
        line.ticket = t;
      }
      return t;
    }

    /**
     * The fence's lapse, cut to half the TTL (at least 1 s): a holder killed with this ticket
     * queued for its other threads then holds the lease up no longer than its TTL does.
     */
    private Duration lapse(Duration ttl) {
      long half = Math.max(1, ttl.toSeconds() / 2);
      return turns.lapse.toSeconds() <= half ? turns.lapse : Duration.ofSeconds(half);
    }

    /** A poll's answer: a granted ticket has left the queue. */
    void polled(dev.writerfence.spi.Turn answer) {
      if (answer.acquired()) {
        line.waiterToken = null;
        line.ticket = null;
      }
    }

    /**
     * After a grant: when other threads of this fence wait for the name, takes a new ticket for
     * them at once (best effort: if it fails, their first poll takes it).
     */
    void queueAgainIfOthersWait(String label, int priority, Duration ttl) {
      if (line.users <= 1) {
        return;
      }
      Ticket t = ticket(label, priority, ttl);
      try {
        turns.store.enqueue(t);
      } catch (RuntimeException e) {
        LOG.debug(
            "writer-fence: fence '{}': could not queue again; the next poll does", fenceName, e);
      }
    }

    /**
     * This thread stops waiting without the lease: the ticket leaves the queue unless another
     * thread of this fence waits for the name and polls on with it. Best effort: a ticket that
     * cannot be dropped lapses.
     */
    void leaveQueue() {
      UUID token = line.waiterToken;
      if (token == null || line.users > 1) {
        return;
      }
      line.waiterToken = null;
      line.ticket = null;
      try {
        turns.store.leaveQueue(fenceName, token);
      } catch (RuntimeException e) {
        LOG.debug("writer-fence: fence '{}': could not leave the queue; it lapses", fenceName, e);
      }
    }

    /**
     * Hands the turn to the longest waiter, if any; later calls do nothing. A ticket taken for
     * waiters that have all given up since is dropped first, so the lease kept for it on release
     * passes on at once rather than when it lapses.
     */
    void giveBack() {
      if (!given.compareAndSet(false, true)) {
        return;
      }
      leaveQueue();
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
   * @param waitNanos 0: no wait, and none ahead of a waiting thread; less than 0: no wait, ahead of
   *     any waiting thread (a fair semaphore's untimed try)
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
          waitNanos < 0 || mine
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
   * The turn of {@code fenceName} when it is free and nobody waits for it.
   *
   * @return the turn, or {@code null} when another thread holds or waits for it (or this thread's
   *     acquire holds it)
   */
  Turn takeFree(String fenceName) {
    try {
      return take(fenceName, 0);
    } catch (InterruptedException e) { // only an interrupted thread waits no time and is told so
      Thread.currentThread().interrupt();
      return null;
    }
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
