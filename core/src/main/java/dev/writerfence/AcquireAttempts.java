package dev.writerfence;

import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.TransientLeaseStoreException;
import dev.writerfence.spi.Turn;
import io.github.resilience4j.retry.Retry;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import jdk.jfr.FlightRecorder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The attempts of one acquire that did not win at its first plain attempt (or never made one): the
 * wait for the local turn, then the store asked again, busy and transient outcomes retried by the
 * policy's backoff (Resilience4j Retry) or by polling the store's queue ({@link QueuePolls}), and
 * every other outcome sorted into busy, unavailable or interrupted. It counts what the answers
 * tell: how many statements were sent, since when a lost answer may have granted the lease, and the
 * queue's last answer.
 *
 * <p>Not thread-safe: one acquire's attempts run one at a time, on its thread.
 */
final class AcquireAttempts {
  private static final Logger LOG = LoggerFactory.getLogger(FencedCallFlow.class);

  /**
   * A turn taken without waiting and ahead of any waiter (tryAcquire, or an interrupted thread).
   */
  private static final long BARGE = -1;

  private final FencedCallFlow flow;
  private final FencedCalls.Call call;
  private final String fenceName;
  private final String label;
  private final Duration ttl;
  private final BusyRetryPolicy policy; // null: the fence's default
  private final UUID holderToken; // one token for every attempt: a repeat is idempotent
  private final long queuedNanos; // when the call began: its budget counts from then
  private final ObservedFence.Acquire watch; // null: not observed

  private int attempts; // statements sent, plain attempts and polls alike
  // When the earliest attempt that may have granted the lease was sent: an attempt whose answer
  // was lost may have granted it, and a repeat with the same holder token returns that grant
  // unchanged, so the TTL is counted from the first attempt since the last busy answer.
  private long grantableSince;
  private boolean grantable;
  private Turn last; // the queue's last answer, when it was polled
  private int firstPlace; // the place of the queue's first answer; 0 until it was polled
  private int failures; // transient failures before the first poll
  private boolean plainDone; // the flow made the first plain attempt already
  private boolean waited; // the thread waited for its turn: then it polls the queue at once
  private QueuePace.Wait pace; // this wait's pace; null: it waits out its budget
  private long deadlineNanos; // when the budget of the queued wait ends
  private QueuePace.Estimate early; // why it gave up before its budget ended; null: it did not

  AcquireAttempts(
      FencedCallFlow flow,
      FencedCalls.Call call,
      String fenceName,
      String label,
      Duration ttl,
      BusyRetryPolicy policy,
      UUID holderToken,
      long queuedNanos,
      ObservedFence.Acquire watch) {
    this.flow = flow;
    this.policy = policy;
    this.call = call;
    this.fenceName = fenceName;
    this.label = label;
    this.ttl = ttl;
    this.holderToken = holderToken;
    this.queuedNanos = queuedNanos;
    this.watch = watch;
  }

  /** The flow's first plain attempt answered busy, or failed transiently. */
  void answeredOnce(long sentNanos, boolean failedTransiently) {
    attempts = 1;
    grantable = true;
    grantableSince = sentNanos;
    plainDone = true;
    if (failedTransiently) {
      failures = 1; // the queue's retry counts it against the attempts
    } else {
      busyAnswer();
    }
  }

  /**
   * @return statements sent so far
   */
  int count() {
    return attempts;
  }

  /**
   * @param attempts a call's attempts, or {@code null} when it won at its first plain attempt
   * @return its place in the queue at the queue's first answer (1 is the head); 0 when it never
   *     polled the queue
   */
  static int place(AcquireAttempts attempts) {
    return attempts == null ? 0 : attempts.firstPlace;
  }

  /**
   * The turn: {@code free} when the flow took it at once, else waited for as long as the policy's
   * scheduled waits.
   *
   * @return the turn, or {@code null} when other threads of this fence kept it that long and {@code
   *     busyThrows} is false
   * @throws WriterFenceBusyException when other threads of this fence kept it that long and {@code
   *     busyThrows} is true
   */
  LocalTurns.Turn takeTurn(LocalTurns.Turn free, boolean busyThrows) {
    if (free != null) {
      return free;
    }
    waited = true;
    LocalTurns.Turn turn = waitForTurn(flow.policyOrDefault(policy));
    if (turn == null && busyThrows) {
      throw busy(0, Turn.BUSY_UNQUEUED);
    }
    return turn;
  }

  private LocalTurns.Turn waitForTurn(BusyRetryPolicy policy) {
    long waitNanos = saturatedNanos(policy.budget());
    try {
      if (Thread.currentThread().isInterrupted() || waitNanos == 0) {
        // As before turns: a free turn still gets its attempt; only a wait would be interrupted.
        LocalTurns.Turn free = flow.turns().take(fenceName, BARGE);
        if (free != null || waitNanos == 0) {
          return free;
        }
        throw new InterruptedException("interrupted before waiting for the turn");
      }
      return flow.turns().take(fenceName, waitNanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new WriterFenceInterruptedException(
          fenceName,
          "writer-fence: fence '"
              + fenceName
              + "': interrupted while waiting for another writer of this process to release it;"
              + " the guarded code did not run and no lease is held",
          e);
    }
  }

  /**
   * Asks the store while holding the turn, busy retried by the policy's backoff or by waiting in
   * the store's queue; a lease it grants takes the turn with it, otherwise the turn is given back.
   *
   * @return the grant; empty when still busy after the last attempt and {@code busyThrows} is false
   */
  Optional<HeldLease.Grant> acquire(LocalTurns.Turn turn, boolean busyThrows) {
    Optional<StoreLease> lease;
    try {
      flow.refuseWhenClosed(fenceName); // closed while this thread waited its turn
      lease = fromStore(turn);
    } catch (Throwable t) {
      turn.giveBack(); // drops the ticket too unless another thread polls on with it
      throw t;
    }
    if (lease.isEmpty()) {
      turn.giveBack();
      if (busyThrows) {
        throw busy(attempts, last != null ? last : Turn.BUSY_UNQUEUED);
      }
      return Optional.empty();
    }
    if (flow.store().keepsQueue()) {
      // More threads of this fence wait for the name: queue for them now (see the flow).
      turn.queueAgainIfOthersWait(label, flow.priority(call), ttl);
    }
    return Optional.of(HeldLease.Grant.of(lease.get(), holderToken, grantableSince));
  }

  /** The attempts themselves, their failures sorted. */
  private Optional<StoreLease> fromStore(LocalTurns.Turn turn) {
    try {
      Retry retry = flow.retryOrNull(policy, waited, System.nanoTime() - queuedNanos);
      if (retry != null) {
        return retry.executeCallable(this::plain);
      }
      return queued(turn);
    } catch (GiveUpEarly e) {
      return Optional.empty(); // busy now: the caller gives the turn back and leaves the queue
    } catch (Exception e) {
      throw sorted(e, flow, call, fenceName, attempts);
    }
  }

  /**
   * What a failed attempt, or a wait between attempts, ends the acquire with: an argument the store
   * refused and an unavailable store as they are (thrown by an attempt itself, never by a wait: not
   * retried, so not an interrupted wait), an interrupted wait as interrupted, anything else as
   * unavailable. The listener hears of an unavailable store.
   */
  static RuntimeException sorted(
      Exception e, FencedCallFlow flow, FencedCalls.Call call, String fenceName, int attempts) {
    if (!(e instanceof IllegalArgumentException || e instanceof WriterFenceUnavailableException)
        && (e instanceof InterruptedException || Thread.currentThread().isInterrupted())) {
      // Resilience4j answers an interrupt during its wait by setting the flag again and throwing
      // what it has: a CancellationException, the last transient error, or nothing usable.
      Thread.currentThread().interrupt();
      return new WriterFenceInterruptedException(
          fenceName,
          "writer-fence: fence '"
              + fenceName
              + "': interrupted while waiting to try the acquire again, after "
              + attempts
              + (attempts == 1 ? " attempt" : " attempts")
              + "; the guarded code did not run and no lease is held",
          e);
    }
    return failed(e, flow, call, fenceName, attempts);
  }

  /**
   * Every attempt after the first polls the queue under the process's one ticket for the name, so
   * the threads of this fence wait as one waiter (ADR 37); a thread that waited for its turn polls
   * at once, so this process holds its place from the moment the previous holder gave the turn
   * back.
   */
  private Optional<StoreLease> queued(LocalTurns.Turn turn) throws Exception {
    if (!plainDone && !waited && !turn.hasTicket()) {
      plainDone = true;
      try {
        Optional<StoreLease> lease = plain();
        if (lease.isPresent()) {
          return lease;
        }
      } catch (TransientLeaseStoreException e) {
        failures = 1; // the queue's retry counts it against the attempts
      }
    }
    BusyRetryPolicy p = flow.policyOrDefault(policy);
    long deadline = queuedNanos + saturatedNanos(p.budget());
    Ticket ticket = turn.ticket(label, flow.priority(call), ttl);
    QueuePolls polls = flow.polls();
    QueuePolls.Progress progress = polls.progress(this::holder);
    long[] seen = {polls.seen()};
    deadlineNanos = deadline;
    pace = flow.pace() == null ? null : flow.pace().wait(fenceName);
    return polls
        .retry(p, deadline, failures, progress)
        .executeCallable(
            () -> {
              polls.beforePoll(last != null ? last.place() : 0, seen[0], progress, deadline);
              seen[0] = polls.seen(); // before the poll: a release after its answer counts
              return poll(turn, ticket);
            })
        .lease();
  }

  /**
   * Ends a queued wait from inside its retry, which retries transient failures only: the budget
   * cannot be met at the queue's pace ({@link QueuePace}).
   */
  private static final class GiveUpEarly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    GiveUpEarly() {
      super(null, null, false, false);
    }
  }

  /** The holder of the lease by the database, for the front's pacing; none if unknown. */
  private QueuePolls.Holder holder() {
    try {
      return flow.store()
          .status(fenceName)
          .filter(LeaseStatus::isHeld)
          .filter(s -> s.secondsLeft() != null && s.acquiredAt() != null && s.expiresAt() != null)
          .map(
              s -> {
                long left = s.secondsLeft().movePointRight(3).longValue();
                long lease = Duration.between(s.acquiredAt(), s.expiresAt()).toMillis();
                return new QueuePolls.Holder(left, Math.max(0, lease - left));
              })
          .orElse(QueuePolls.Holder.NONE);
    } catch (RuntimeException e) { // pacing only: the poll itself reports what is wrong
      LOG.debug("writer-fence: could not read the holder of fence '{}'", fenceName, e);
      return QueuePolls.Holder.NONE;
    }
  }

  /** One plain acquire statement. */
  private Optional<StoreLease> plain() {
    sending();
    String key = call.advisoryKey();
    Optional<StoreLease> answer =
        key == null
            ? flow.store().acquire(fenceName, holderToken, label, ttl)
            : flow.store().acquire(fenceName, key, holderToken, label, ttl);
    if (answer.isEmpty()) {
      busyAnswer();
    }
    return answer;
  }

  /** One poll of the queue with the process's ticket. */
  private Turn poll(LocalTurns.Turn turn, Ticket ticket) {
    sending();
    String key = call.advisoryKey();
    Turn answer =
        key == null
            ? flow.store().acquireInTurn(ticket, holderToken, ttl, flow.polls().headLapse())
            : flow.store().acquireInTurn(ticket, key, holderToken, ttl);
    turn.polled(answer);
    if (last == null) {
      firstPlace = answer.place();
      if (watch != null) {
        watch.queued(answer); // the place the wait starts at
      }
    }
    last = answer;
    if (!answer.acquired()) {
      busyAnswer();
      if (pace != null) {
        early = pace.giveUp(answer.place(), answer.waiters(), System.nanoTime(), deadlineNanos);
        if (early != null) {
          throw new GiveUpEarly();
        }
      }
    }
    return answer;
  }

  /** The bookkeeping of every statement sent, a plain attempt or a poll of the queue. */
  private void sending() {
    ++attempts;
    if (!grantable) {
      grantable = true;
      grantableSince = System.nanoTime();
    }
  }

  private void busyAnswer() {
    grantable = false;
    FenceListener listener = flow.listener();
    if (listener != null) {
      int n = attempts;
      FenceRequest asked = request(call);
      ListenerCalls.notify(() -> listener.busyAttempt(asked, n));
    }
  }

  /** Busy after the last attempt: the exception naming the holder and the caller's place. */
  private WriterFenceBusyException busy(int attemptsMade, Turn lastAnswer) {
    Optional<LeaseStatus> holder = busyHolder();
    Duration waited = Duration.ofNanos(System.nanoTime() - queuedNanos);
    if (FenceEvents.AVAILABLE && FlightRecorder.isInitialized()) { // JFR runs: a recording may ask
      FenceEvents.busy(
          fenceName, label, attemptsMade, waited, lastAnswer.place(), lastAnswer.waiters(), holder);
    }
    FenceListener listener = flow.listener();
    if (listener != null) {
      FenceRequest asked = request(call);
      ListenerCalls.notify(() -> listener.busy(asked, attemptsMade, holder));
    }
    return new WriterFenceBusyException(
        fenceName,
        attemptsMade,
        holder.map(LeaseStatus::holderLabel).orElse(null),
        holder.map(LeaseStatus::expiresAt).orElse(null),
        waited,
        flow.policyOrDefault(policy).budget(),
        lastAnswer.place(),
        lastAnswer.waiters(),
        early == null ? null : early.expected());
  }

  /** Who holds a busy fence, for the exception's message; best effort. */
  private Optional<LeaseStatus> busyHolder() {
    try {
      return flow.store().status(fenceName).filter(LeaseStatus::isHeld);
    } catch (RuntimeException e) {
      LOG.debug("writer-fence: could not read the holder of busy fence '{}'", fenceName, e);
      return Optional.empty();
    }
  }

  /**
   * An attempt failed: an argument the store refused and an unavailable store are thrown as they
   * are, anything else as unavailable; the listener hears of an unavailable store.
   */
  private static RuntimeException failed(
      Exception e, FencedCallFlow flow, FencedCalls.Call call, String fenceName, int attempts) {
    FenceListener listener = flow.listener();
    if (e instanceof IllegalArgumentException iae) {
      return iae;
    }
    if (e instanceof WriterFenceUnavailableException u) {
      if (listener != null) {
        FenceRequest asked = request(call);
        ListenerCalls.notify(() -> listener.unavailable(asked, u));
      }
      return u;
    }
    String message =
        e instanceof TransientLeaseStoreException t
            ? "writer-fence: fence '"
                + fenceName
                + "': the database kept failing transiently (SQLState "
                + t.sqlState()
                + ") through "
                + attempts
                + " attempts; the guarded code did not run"
            : "writer-fence: fence '" + fenceName + "': acquire failed: " + e;
    WriterFenceUnavailableException u = new WriterFenceUnavailableException(fenceName, message, e);
    if (listener != null) {
      FenceRequest asked = request(call);
      ListenerCalls.notify(() -> listener.unavailable(asked, u));
    }
    return u;
  }

  /** The request a listener is given: the caller's, or one made of the values it asked with. */
  private static FenceRequest request(FencedCalls.Call call) {
    if (call.request() != null) {
      return call.request();
    }
    return FenceRequest.builder(call.fenceName())
        .holderLabel(call.holderLabel())
        .ttl(call.ttl())
        .retryPolicy(call.retryPolicy())
        .build();
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) { // over 292 years: as good as forever
      return Long.MAX_VALUE;
    }
  }
}
