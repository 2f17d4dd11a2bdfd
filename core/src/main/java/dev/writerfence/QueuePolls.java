package dev.writerfence;

import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.ReleaseSignal;
import dev.writerfence.spi.TransientLeaseStoreException;
import dev.writerfence.spi.Turn;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.function.Supplier;

/**
 * When a queued writer polls again (contract version 2's queue, ADR 31 and ADR 37): the head of the
 * queue and the waiter behind it poll every poll interval, so the lease kept for the head on
 * release is claimed within one interval and the next head is already polling fast when its turn
 * comes; waiters further back poll by how fast the queue moves ({@link Progress}), at most every
 * quarter of the ticket's lapse, so their tickets stay alive (four polls per lapse) and the load of
 * many idle waiters stays bounded. All within the call's budget: the last wait is cut to what is
 * left of it.
 *
 * <p>Both follow what the database said: at the front the holder is read (once, and again when its
 * time runs out or the place changes). Without notifications the front polls every interval while
 * holds are short, and no oftener than a tenth of how long the holder has held so far while it
 * holds long (at most a quarter of the lapse, and at its expiry). With a {@link ReleaseSignal}
 * ({@code queue.listen}) that is heard (its probe proved that notifications arrive, {@link
 * ReleaseSignal#hearing()}), those two wait for the signal of a release instead, polling at once
 * when it comes and otherwise only at the holder's expiry and four times per lapse (ten poll
 * intervals when the holder is not known): a lapsed head or an expired lease sends no signal.
 *
 * <p>Resilience4j Retry runs the polls; this class only makes its configuration for one wait.
 */
final class QueuePolls {
  private final long pollMillis;
  private final long slowestMillis;
  private final long lapseMillis;
  private final ReleaseSignal signal; // null: poll on schedule only
  private final long signalWaitNanos;

  /**
   * At the front without notifications, a poll per this share of how long the holder has held so
   * far: a holder that has held for a while is likely to hold on for a while.
   */
  static final long HELD_SHARE = 10;

  /**
   * The head lapse of a poll while a release would be heard (contract version 5, ADR 68): a dead
   * head holds the queue up for about this long, the next waiter's poll included.
   */
  static final long HEAD_LAPSE_MILLIS = 800;

  /**
   * The head lapse a poll says (ADR 68): how soon this waiter polls again at the latest while it is
   * the head of the queue, with room to spare, so that a live head is never passed over.
   *
   * <p>While a release would be heard ({@link ReleaseSignal#hearing()}) {@value #HEAD_LAPSE_MILLIS}
   * ms, or three of its waits for a signal when no holder is known if those are longer: a release
   * wakes the head at once, and a free lease is polled at least that often. Otherwise twice the
   * slowest wait at the front (a quarter of the lapse), since a polled head does not know when the
   * lease is freed. Never more than the ticket's lapse.
   *
   * @return the head lapse, in whole milliseconds
   */
  Duration headLapse() {
    long millis =
        signal != null && signal.hearing()
            ? Math.max(HEAD_LAPSE_MILLIS, 3 * (signalWaitNanos / 1_000_000))
            : Math.max(HEAD_LAPSE_MILLIS, 2 * slowestMillis);
    return Duration.ofMillis(Math.max(1, Math.min(millis, lapseMillis)));
  }

  /**
   * The holder of the lease as the front of a queue reads it (its {@code lease_status}).
   *
   * @param leftMillis what its lease has left by the database clock; 0 when free or not known
   * @param heldMillis how long it has held the lease so far
   */
  record Holder(long leftMillis, long heldMillis) {
    /** Free, or not known. */
    static final Holder NONE = new Holder(0, 0);
  }

  /**
   * @param pollInterval the head's interval
   * @param lapse the ticket's lapse
   * @param signal the fence's release signal, or {@code null}
   */
  QueuePolls(Duration pollInterval, Duration lapse, ReleaseSignal signal) {
    this.pollMillis = Math.max(1, pollInterval.toMillis());
    this.slowestMillis = Math.max(pollMillis, lapse.toMillis() / 4);
    this.lapseMillis = lapse.toMillis();
    this.signal = signal;
    this.signalWaitNanos = Math.min(pollInterval.toNanos() * 10, lapse.toNanos() / 4);
  }

  /**
   * @return the signal count to pass to {@link #beforePoll}, read before a poll
   */
  long seen() {
    return signal == null ? 0 : signal.seen();
  }

  /**
   * Before a poll: at the front of the queue with a release signal, waits for a release signalled
   * after {@code seen}: while the signal is heard, until the holder's expiry when that is known and
   * at most a quarter of the lapse (a safety net: a lapsed head or an expired lease sends no
   * signal), else at most ten poll intervals; otherwise returns at once, Resilience4j having waited
   * the interval already. Behind the front, and before a wait's first poll, it only keeps the
   * signal listening (ADR 65: while any writer of the process waits), so that the listener is
   * connected and its probe answered before the waiter reaches the front: started there, it would
   * still be starting when the head's turn comes, and the head would poll.
   *
   * @param place the place the previous poll answered; 0 before the wait's first poll
   * @param seen {@link #seen()} before that poll
   * @param progress the wait's pacing, which knows what the holder had left
   * @param deadlineNanos when the call's budget ends, by {@link System#nanoTime()}: no wait past it
   * @throws InterruptedException when interrupted while waiting
   */
  void beforePoll(int place, long seen, Progress progress, long deadlineNanos)
      throws InterruptedException {
    if (signal != null && (place < 1 || place > 2)) {
      signal.awaitAfter(seen, 0); // returns at once: starts (or keeps) the listening only
    } else if (signal != null) {
      // Also while the signal cannot be heard yet: the wait is what starts its listening, and
      // returns at once then.
      long now = System.nanoTime();
      long left = progress.holderLeftNanos(place, now);
      long wait =
          left > 0 ? Math.min(slowestMillis * 1_000_000L, left + 1_000_000L) : signalWaitNanos;
      // Within the call's budget: its last poll comes when the budget ends, not a wait later.
      signal.awaitAfter(seen, Math.max(0, Math.min(wait, deadlineNanos - now)));
    }
  }

  /**
   * The front's wait: next to nothing while a release would be heard (see beforePoll); else the
   * poll interval while holds are short, and longer while the holder has held long (a tenth of
   * that, at most a quarter of the lapse), but never past the holder's expiry: a lease held for
   * minutes is not polled a hundred times a second, and a short hold is still taken over within
   * about an interval.
   */
  private long frontMillis(int place, Progress progress, long nowNanos) {
    if (signal != null && place >= 1 && signal.hearing()) {
      return 1;
    }
    long left = place >= 1 ? progress.holderLeftNanos(place, nowNanos) : 0;
    if (left <= 0) {
      return pollMillis;
    }
    long byHolder = Math.min(left, progress.holderHeldNanos(nowNanos) / HELD_SHARE) / 1_000_000;
    return Math.max(pollMillis, Math.min(slowestMillis, byHolder));
  }

  /**
   * How one wait's polls are spaced behind the front of the queue: by how fast the queue moves. A
   * waiter at place {@code p} expects to reach the front after {@code p - 2} turns; it polls again
   * after half of that time, so it is polling at the front's rate before its turn comes however
   * short the holders' sections are, and polls seldom while nobody moves (at most every quarter of
   * the lapse, which keeps its ticket alive). The time a turn takes is learnt from the wait itself:
   * how far its place moved since its first poll; before that, one poll interval a turn. Not
   * thread-safe: one wait's polls run one at a time.
   */
  final class Progress {
    private final Supplier<Holder> holder; // null: never read
    private int firstPlace = -1;
    private long firstNanos;
    private Holder read; // the holder as last read; null: never read
    private long readNanos; // when
    private int readAtPlace; // the place it was read at: a new place may mean a new holder
    private long readSignals; // releases signalled when it was read: one since may have freed it
    private long nextReadNanos;

    /** Without the holder: the front polls every interval, as the tests pace it. */
    Progress() {
      this(null);
    }

    Progress(Supplier<Holder> holder) {
      this.holder = holder;
    }

    /**
     * What the holder's lease has left now. Read from the store at the front of the queue, again
     * when the last reading ran out (an expiry passed, which renewal may have pushed out; at most
     * once per quarter of the lapse while it reads nothing left), when the place changed, and when
     * a release was signalled since (the lease may be free and kept for a head that never takes it,
     * which the next waiter passes over only by polling, ADR 68).
     *
     * @return nanoseconds, 0 when free, expired or not known
     */
    long holderLeftNanos(int place, long nowNanos) {
      if (holder == null) {
        return 0;
      }
      long signals = seen();
      if (read == null
          || place != readAtPlace
          || nowNanos - nextReadNanos >= 0
          || signals != readSignals) {
        Holder h = holder.get();
        read = h == null ? Holder.NONE : h;
        readNanos = nowNanos;
        readAtPlace = place;
        readSignals = signals;
        nextReadNanos = nowNanos + Math.max(read.leftMillis(), slowestMillis) * 1_000_000L;
      }
      return Math.max(0, read.leftMillis() * 1_000_000L - (nowNanos - readNanos));
    }

    /**
     * @return how long the holder last read has held the lease by now, in nanoseconds
     */
    long holderHeldNanos(long nowNanos) {
      return read == null ? 0 : read.heldMillis() * 1_000_000L + (nowNanos - readNanos);
    }

    /**
     * @param place the place the last poll answered: 1 for the head, 0 when not queued yet (a first
     *     plain attempt answered busy)
     * @param nowNanos when it answered, by {@link System#nanoTime()}
     * @return how long to wait before the next poll, in milliseconds
     */
    long waitMillis(int place, long nowNanos) {
      if (place <= 2) {
        return frontMillis(place, this, nowNanos);
      }
      if (firstPlace < 0 || place > firstPlace) { // first, or pushed back by higher priorities
        firstPlace = place;
        firstNanos = nowNanos;
        return Math.min(slowestMillis, pollMillis * (place - 2));
      }
      long elapsed = nowNanos - firstNanos;
      int passed = firstPlace - place;
      double turnNanos =
          passed > 0 ? (double) elapsed / passed : Math.max(elapsed, pollMillis * 1_000_000.0);
      long expectMillis = (long) ((place - 2) * turnNanos / 2 / 1_000_000);
      return Math.max(pollMillis, Math.min(slowestMillis, expectMillis));
    }
  }

  /**
   * The retry of one queued wait: polls until granted or until {@code deadlineNanos} (by {@link
   * System#nanoTime()}); transient failures are retried on the policy's backoff, as many as its
   * attempts.
   *
   * @param policy the call's policy, for the backoff after a transient failure
   * @param deadlineNanos when the call's budget ends
   * @param failedAlready transient failures of the call before its first poll
   * @param progress this wait's pacing ({@link #progress})
   */
  Retry retry(BusyRetryPolicy policy, long deadlineNanos, int failedAlready, Progress progress) {
    IntervalFunction backoff = policy.intervalFunction();
    int maxFailures = policy.maxAttempts();
    int[] failures = {failedAlready}; // this wait's transient failures: polls run one at a time
    return Retry.of(
        "writer-fence-queue",
        RetryConfig.<Turn>custom()
            .maxAttempts(Integer.MAX_VALUE)
            .intervalBiFunction(
                (attempt, outcome) ->
                    cut(
                        outcome.isLeft()
                            ? backoff.apply(attempt)
                            : progress.waitMillis(outcome.get().place(), System.nanoTime()),
                        deadlineNanos))
            .retryOnResult(turn -> !turn.acquired() && leftMillis(deadlineNanos) >= 1)
            // A transient failure is not a busy answer: retried as without a queue, by attempts.
            .retryOnException(
                e -> e instanceof TransientLeaseStoreException && ++failures[0] < maxFailures)
            .failAfterMaxAttempts(false)
            .build());
  }

  /**
   * @param holder reads the holder of the lease from the store, at the front of the queue ({@code
   *     null} or {@link Holder#NONE} when free or not known); {@code null} to never read it
   * @return the pacing of one wait's polls
   */
  Progress progress(Supplier<Holder> holder) {
    return new Progress(holder);
  }

  private static long cut(long waitMillis, long deadlineNanos) {
    return Math.max(1, Math.min(waitMillis, leftMillis(deadlineNanos)));
  }

  private static long leftMillis(long deadlineNanos) {
    return (deadlineNanos - System.nanoTime()) / 1_000_000;
  }
}
