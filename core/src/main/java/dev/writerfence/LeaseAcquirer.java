package dev.writerfence;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFences;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spi.TransientLeaseStoreException;
import dev.writerfence.spi.Turn;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The acquiring side of a {@link WriterFence}, and the entry of every fenced call: join a hold the
 * thread has, or take the fence name's turn among this fence's threads ({@link LocalTurns}) and ask
 * the lease store, busy and transient outcomes retried by Resilience4j Retry with the request's
 * {@link BusyRetryPolicy}, every other outcome sorted into busy, unavailable or interrupted.
 *
 * <p>An uncontended call runs no code of the request, the policy or the listener: the turn is free,
 * the default policy's {@link Retry} was made with the fence, and a listener is told only when the
 * fence has one (the request it is given is then built if the call came without one).
 */
final class LeaseAcquirer {
  private static final Logger LOG = LoggerFactory.getLogger(LeaseAcquirer.class);

  /**
   * A turn taken without waiting and ahead of any waiter (tryAcquire, or an interrupted thread).
   */
  private static final long BARGE = -1;

  static {
    // The weaving modes' entry points live in the SPI package, not on the user API; they reach the
    // fence's acquiring side here, so a woven call runs no code of WriterFence itself.
    FencedCalls.install(
        new FencedCalls.Core() {
          @Override
          public FencedCall enter(WriterFence fence, FenceRequest request, String takenBy) {
            return fence.acquirer.enter(request, takenBy);
          }

          @Override
          public FencedCall enter(
              WriterFence fence,
              String fenceName,
              String holderLabel,
              Duration ttl,
              BusyRetryPolicy retryPolicy,
              Integer priority,
              boolean interruptOnLoss,
              String takenBy) {
            return fence.acquirer.enter(
                fenceName, holderLabel, ttl, retryPolicy, priority, null, interruptOnLoss, takenBy);
          }

          @Override
          public LeaseStore store(WriterFence fence) {
            return fence.store;
          }
        });
  }

  private final WriterFence fence;
  private final LeaseStore store;
  private final FenceListener listener; // null: none, and nothing is told
  private final BusyRetryPolicy defaultPolicy;
  private final Retry defaultRetry;
  private final ConcurrentMap<BusyRetryPolicy, Retry> retries = new ConcurrentHashMap<>();
  private final LocalTurns turns;
  private final boolean queues; // the store keeps a queue of waiters (contract version 2)
  private final boolean defaultQueues; // and the default policy waits in it
  private final boolean defaultHasMaxWait;
  private final QueuePolls polls;

  /** The acquiring side of {@code fence}, whose store, defaults and listener it uses. */
  LeaseAcquirer(WriterFence fence, BusyRetryPolicy defaultPolicy) {
    this.fence = fence;
    this.store = fence.store;
    this.listener = fence.listener;
    this.defaultPolicy = defaultPolicy;
    this.defaultRetry = retry(defaultPolicy);
    this.queues = store.keepsQueue();
    this.defaultQueues = queues && defaultPolicy.maxAttempts() > 1;
    this.defaultHasMaxWait = defaultPolicy.maxWait() != null;
    this.polls = new QueuePolls(fence.queuePollInterval, fence.queueLapse, fence.releaseSignal);
    this.turns = new LocalTurns(store, fence.queueLapse);
  }

  /**
   * The enter half of a fenced call; see {@link FencedCalls#enter}.
   *
   * @param takenBy the fenced method; {@code null} for the API's caller ({@link ApiCaller})
   */
  FencedCall enter(FenceRequest request, String takenBy) {
    Objects.requireNonNull(request, "request");
    return enter(
        request.fenceName(),
        request.holderLabel().orElse(null),
        request.ttl().orElse(null),
        request.retryPolicy().orElse(null),
        request.priorityOrNull(),
        request,
        request.interruptOnLoss(),
        takenBy);
  }

  /**
   * The enter half of a fenced call for values already checked: join a hold of the thread, or
   * acquire and push the lease on the thread's held-fence stack.
   *
   * @param holderLabel {@code null} for the fence's default
   * @param ttl {@code null} for the fence's default
   * @param policy {@code null} for the fence's default
   * @param priority {@code null} for the fence's default
   * @param request the request these values came from, or {@code null} (made if a listener needs
   *     it)
   * @param interruptOnLoss interrupt this thread when the lease is lost before the call ends
   * @param takenBy the fenced method; {@code null} for the API's caller ({@link ApiCaller})
   */
  FencedCall enter(
      String fenceName,
      String holderLabel,
      Duration ttl,
      BusyRetryPolicy policy,
      Integer priority,
      FenceRequest request,
      boolean interruptOnLoss,
      String takenBy) {
    // A hold of this domain on the thread, from a fenced call or an acquire, of any copy of core.
    // The stack is asked first: with no valid hold of the name at all, no domain is compared.
    if (HeldFenceStack.holds(fenceName)) {
      Optional<HeldFenceStack.Entry> outer = HeldFences.find(store, fenceName);
      if (outer.isPresent()) {
        FencedCall joined =
            interruptOnLoss
                ? HeldLease.JoinedInterruptible.of(outer.get())
                : HeldLease.Joined.of(outer.get());
        if (joined != null) {
          return joined;
        } // the outer hold was released meanwhile: acquire after it
      }
    }
    refuseWhenClosed(fenceName);
    HeldLease lease =
        acquire(fenceName, holderLabel, ttl, policy, priority, request, true).orElseThrow().hold();
    if (interruptOnLoss) {
      lease.interruptOnLoss();
    }
    // Named before it is pushed: every thread that sees the entry sees who took it.
    lease.takenBy(takenBy != null ? takenBy : ApiCaller.find());
    // Pushed after it is kept: a lease the stack shows is renewed and watched.
    HeldFenceStack.push(lease.entry);
    return lease;
  }

  /** Throws for a fence name when the fence was closed (checked again after a turn's wait). */
  void refuseWhenClosed(String fenceName) {
    if (fence.closed.get()) {
      throw closedException(fenceName);
    }
  }

  static WriterFenceUnavailableException closedException(String fenceName) {
    return new WriterFenceUnavailableException(
        fenceName,
        "writer-fence: fence '"
            + fenceName
            + "': this WriterFence is closed, so no lease can be confirmed and the guarded code"
            + " does not run",
        null);
  }

  /**
   * Acquires with {@code policy} ({@code null}: the fence's default): empty when still busy after
   * the last attempt and {@code busyThrows} is false. The lease is not kept yet ({@link
   * HeldLease#hold}).
   *
   * @param priority {@code null} for the fence's default
   */
  Optional<HeldLease> acquire(
      String fenceName,
      String holderLabel,
      Duration ttl,
      BusyRetryPolicy policy,
      Integer priority,
      FenceRequest request,
      boolean busyThrows) {
    long queued = System.nanoTime();
    // A free turn with nobody waiting is taken at once, so the policy's wait is not even read.
    LocalTurns.Turn turn = freeTurn(fenceName);
    boolean waited = turn == null;
    BusyRetryPolicy p = policy != null ? policy : defaultPolicy;
    if (waited) {
      turn = takeTurn(fenceName, p);
    }
    if (turn == null) {
      return busyThrows
          ? busy(fenceName, holderLabel, ttl, policy, request, 0, Turn.BUSY_UNQUEUED, queued)
          : Optional.empty();
    }
    StoreOutcome outcome;
    try {
      refuseWhenClosed(fenceName); // closed while this thread waited its turn
      // Read through fields for the default policy: an uncontended call runs none of its code.
      Retry retry = null; // null: the queue's polls, not the backoff (ADR 37)
      if (policy == null ? !defaultQueues : !queues || policy.maxAttempts() == 1) {
        retry = policy == null ? defaultRetry : retryFor(policy);
        if (waited || (policy == null ? defaultHasMaxWait : policy.maxWait() != null)) {
          BusyRetryPolicy rest = p.afterWaiting(Duration.ofNanos(System.nanoTime() - queued));
          // A policy cut after a wait is not kept: there may be as many cuts as attempts.
          retry = rest == p ? retry : retry(rest);
        }
      }
      outcome =
          acquireFromStore(
              fenceName, holderLabel, ttl, policy, priority, request, retry, turn, waited, queued);
    } catch (Throwable t) {
      turn.giveBack(); // drops the ticket too unless another thread polls on with it
      throw t;
    }
    if (outcome.lease() == null) {
      turn.giveBack(); // drops the ticket too unless another thread polls on with it
      if (!busyThrows) {
        return Optional.empty();
      }
      return busy(
          fenceName, holderLabel, ttl, policy, request, outcome.attempts(), outcome.last(), queued);
    }
    return Optional.of(outcome.lease());
  }

  /** The request a listener is given: the caller's, or one made of the values it asked with. */
  private static FenceRequest request(
      String fenceName,
      String holderLabel,
      Duration ttl,
      BusyRetryPolicy policy,
      FenceRequest request) {
    if (request != null) {
      return request;
    }
    return FenceRequest.builder(fenceName)
        .holderLabel(holderLabel)
        .ttl(ttl)
        .retryPolicy(policy)
        .build();
  }

  /**
   * The store's answer: the lease, or {@code null} when busy through every attempt; the last turn
   * the store answered (its place in the queue).
   */
  private record StoreOutcome(HeldLease lease, int attempts, Turn last) {}

  /** The name's turn when it is free and nobody waits for it; {@code null} otherwise. */
  private LocalTurns.Turn freeTurn(String fenceName) {
    if (Thread.currentThread().isInterrupted()) {
      return null; // takeTurn decides what an interrupted thread gets
    }
    try {
      return turns.take(fenceName, 0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /**
   * The turn of the request's fence name among this fence's threads, waited for as long as the
   * policy's scheduled waits: {@code null} when other threads of this fence kept it that long.
   */
  private LocalTurns.Turn takeTurn(String fenceName, BusyRetryPolicy policy) {
    long waitNanos = saturatedNanos(policy.budget());
    try {
      if (Thread.currentThread().isInterrupted() || waitNanos == 0) {
        // As before turns: a free turn still gets its attempt; only a wait would be interrupted.
        LocalTurns.Turn free = turns.take(fenceName, BARGE);
        if (free != null || waitNanos == 0) {
          return free;
        }
        throw new InterruptedException("interrupted before waiting for the turn");
      }
      return turns.take(fenceName, waitNanos);
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

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) { // over 292 years: as good as forever
      return Long.MAX_VALUE;
    }
  }

  /** Busy after the last attempt: the exception naming the holder and the caller's place. */
  private Optional<HeldLease> busy(
      String fenceName,
      String holderLabel,
      Duration ttl,
      BusyRetryPolicy policy,
      FenceRequest request,
      int attempts,
      Turn last,
      long queuedNanos) {
    Optional<LeaseStatus> holder = busyHolder(fenceName);
    if (listener != null) {
      FenceRequest asked = request(fenceName, holderLabel, ttl, policy, request);
      ListenerCalls.notify(() -> listener.busy(asked, attempts, holder));
    }
    throw new WriterFenceBusyException(
        fenceName,
        attempts,
        holder.map(LeaseStatus::holderLabel).orElse(null),
        holder.map(LeaseStatus::expiresAt).orElse(null),
        Duration.ofNanos(System.nanoTime() - queuedNanos),
        (policy != null ? policy : defaultPolicy).budget(),
        last.place(),
        last.waiters());
  }

  /**
   * Asks the store while holding the fence name's local turn, busy retried by {@code retry} or,
   * when it is {@code null}, by waiting in the store's queue; a lease it grants takes the turn with
   * it.
   *
   * @param priority {@code null} for the fence's default
   * @param waited whether the thread waited for its turn: then it polls the queue at once
   * @param queuedNanos when the call began, by {@link System#nanoTime()}: its budget counts from
   *     then
   */
  private StoreOutcome acquireFromStore(
      String fenceName,
      String holderLabel,
      Duration askedTtl,
      BusyRetryPolicy policy,
      Integer priority,
      FenceRequest request,
      Retry retry,
      LocalTurns.Turn turn,
      boolean waited,
      long queuedNanos) {
    UUID holderToken = UUID.randomUUID(); // one token for every attempt: a repeat is idempotent
    // Only a request names one (weaving modes build a request when a method names one, ADR 58).
    String advisoryKey = request == null ? null : request.advisoryKey().orElse(null);
    String label = holderLabel != null ? holderLabel : fence.defaultHolderLabel;
    Duration ttl = askedTtl != null ? askedTtl : fence.defaultTtl;
    int[] attempts = {0};
    // When the earliest attempt that may have granted the lease was sent: an attempt whose answer
    // was lost may have granted it, and a repeat with the same holder token returns that grant
    // unchanged, so the TTL is counted from the first attempt since the last busy answer.
    long[] grantableSince = {0L};
    boolean[] grantable = {false};
    Turn[] last = {null}; // the queue's last answer, when it was polled
    // The bookkeeping of every statement sent, a plain attempt or a poll of the queue.
    Runnable sending =
        () -> {
          ++attempts[0];
          if (!grantable[0]) {
            grantable[0] = true;
            grantableSince[0] = System.nanoTime();
          }
        };
    Runnable busyAnswer =
        () -> {
          grantable[0] = false;
          if (listener != null) {
            int n = attempts[0];
            FenceRequest asked = request(fenceName, holderLabel, askedTtl, policy, request);
            ListenerCalls.notify(() -> listener.busyAttempt(asked, n));
          }
        };
    Callable<Optional<StoreLease>> attempt =
        () -> {
          sending.run();
          // Without a key text the plain method: the hot path crosses no more classes (ADR 34).
          Optional<StoreLease> answer =
              advisoryKey == null
                  ? store.acquire(fenceName, holderToken, label, ttl)
                  : store.acquire(fenceName, advisoryKey, holderToken, label, ttl);
          if (answer.isEmpty()) {
            busyAnswer.run();
          }
          return answer;
        };
    Optional<StoreLease> lease;
    try {
      if (retry != null) {
        lease = retry.executeCallable(attempt);
      } else {
        // The first attempt of a turn taken at once, without a ticket, is a plain acquire: an
        // uncontended call writes no ticket. Every other attempt polls the queue under the
        // process's one ticket for the name, so the threads of this fence wait as one waiter
        // (ADR 37); a thread that waited for its turn polls at once, so this process holds its
        // place from the moment the previous holder gave the turn back.
        int failures = 0;
        lease = Optional.empty();
        if (!waited && !turn.hasTicket()) {
          try {
            lease = attempt.call();
          } catch (TransientLeaseStoreException e) {
            failures = 1; // the queue's retry counts it against the attempts
          }
        }
        if (lease.isEmpty()) {
          BusyRetryPolicy p = policy != null ? policy : defaultPolicy;
          long deadline = queuedNanos + saturatedNanos(p.budget());
          Ticket ticket =
              turn.ticket(label, priority != null ? priority : fence.defaultPriority, ttl);
          long[] seen = {polls.seen()};
          Callable<Turn> poll =
              () -> {
                if (last[0] != null) {
                  polls.beforePoll(last[0].place(), seen[0]);
                }
                seen[0] = polls.seen(); // before the poll: a release after its answer counts
                sending.run();
                Turn answer =
                    advisoryKey == null
                        ? store.acquireInTurn(ticket, holderToken, ttl)
                        : store.acquireInTurn(ticket, advisoryKey, holderToken, ttl);
                turn.polled(answer);
                last[0] = answer;
                if (!answer.acquired()) {
                  busyAnswer.run();
                }
                return answer;
              };
          lease = polls.retry(p, deadline, failures).executeCallable(poll).lease();
        }
      }
    } catch (IllegalArgumentException | WriterFenceUnavailableException e) {
      // Thrown by an attempt itself, never by a wait: not retried, so not an interrupted wait.
      if (e instanceof WriterFenceUnavailableException u && listener != null) {
        FenceRequest asked = request(fenceName, holderLabel, askedTtl, policy, request);
        ListenerCalls.notify(() -> listener.unavailable(asked, u));
      }
      throw e;
    } catch (Exception e) {
      // Resilience4j answers an interrupt during its wait by setting the flag again and throwing
      // what it has: a CancellationException, the last transient error, or nothing usable.
      if (e instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
        Thread.currentThread().interrupt();
        throw new WriterFenceInterruptedException(
            fenceName,
            "writer-fence: fence '"
                + fenceName
                + "': interrupted while waiting to try the acquire again, after "
                + attempts[0]
                + (attempts[0] == 1 ? " attempt" : " attempts")
                + "; the guarded code did not run and no lease is held",
            e);
      }
      if (e instanceof TransientLeaseStoreException t) {
        throw unavailable(
            request(fenceName, holderLabel, askedTtl, policy, request),
            "writer-fence: fence '"
                + fenceName
                + "': the database kept failing transiently (SQLState "
                + t.sqlState()
                + ") through "
                + attempts[0]
                + " attempts; the guarded code did not run",
            e);
      }
      throw unavailable(
          request(fenceName, holderLabel, askedTtl, policy, request),
          "writer-fence: fence '" + fenceName + "': acquire failed: " + e,
          e);
    }
    if (lease.isPresent()) {
      HeldLease acquired =
          new HeldLease(fence, lease.get(), fenceName, holderToken, label, ttl, grantableSince[0]);
      acquired.holdTurn(turn);
      if (queues) {
        // More threads of this fence wait for the name: queue for them now, so this process
        // holds a place (behind those already waiting) through the section, and its release
        // keeps the lease for the head rather than for a late arrival.
        turn.queueAgainIfOthersWait(
            label, priority != null ? priority : fence.defaultPriority, ttl);
      }
      try {
        if (listener != null) {
          // From the call's start: its wait for the turn among this fence's threads counts too.
          Duration toWin = Duration.ofNanos(System.nanoTime() - queuedNanos);
          ListenerCalls.notify(() -> listener.acquired(acquired.view(), attempts[0], toWin));
        }
      } catch (Throwable t) { // a VirtualMachineError: nobody will own the lease, so give it back
        acquired.releaseAfter(t);
        throw t;
      }
      return new StoreOutcome(acquired, attempts[0], null);
    }
    return new StoreOutcome(null, attempts[0], last[0] != null ? last[0] : Turn.BUSY_UNQUEUED);
  }

  /** Who holds a busy fence, for the exception's message; best effort. */
  private Optional<LeaseStatus> busyHolder(String fenceName) {
    try {
      return store.status(fenceName).filter(LeaseStatus::isHeld);
    } catch (RuntimeException e) {
      LOG.debug("writer-fence: could not read the holder of busy fence '{}'", fenceName, e);
      return Optional.empty();
    }
  }

  private WriterFenceUnavailableException unavailable(
      FenceRequest request, String message, Throwable cause) {
    WriterFenceUnavailableException e =
        new WriterFenceUnavailableException(request.fenceName(), message, cause);
    if (listener != null) {
      ListenerCalls.notify(() -> listener.unavailable(request, e));
    }
    return e;
  }

  private Retry retryFor(BusyRetryPolicy policy) {
    return retries.computeIfAbsent(policy, LeaseAcquirer::retry);
  }

  private static Retry retry(BusyRetryPolicy p) {
    return Retry.of(
        "writer-fence",
        RetryConfig.<Optional<StoreLease>>custom()
            .maxAttempts(p.maxAttempts())
            .intervalFunction(p.intervalFunction())
            .retryOnResult(Optional::isEmpty)
            .retryOnException(e -> e instanceof TransientLeaseStoreException)
            .failAfterMaxAttempts(false)
            .build());
  }

  /**
   * One turn per fence name among the threads of one {@link WriterFence}: only the thread holding a
   * name's turn asks the database for that name, and the release of its lease hands the turn to the
   * longest waiter at once (a fair {@link Semaphore}; a {@code tryAcquire}, which does not wait,
   * may take a turn that is free before a woken waiter does). Without it, writers of one process
   * contending for one name would each poll the database on their own backoff schedule, loading it
   * with busy answers while nobody takes the lease between the holder's release and the next poll
   * (ADR 16).
   *
   * <p>A turn is not owned by a thread: a lease released on another thread (the completion of a
   * {@code CompletionStage}) gives its turn back there. Names with neither a holder nor a waiter
   * have no entry, so the map does not grow with the number of names ever used.
   *
   * <p>With a store that keeps a queue, the threads of one name wait in it as one waiter: the line
   * keeps one ticket (one waiter token) from the first poll of a wait until it is granted or the
   * last waiting thread gives up, and only the turn's holder polls with it. A thread that takes the
   * turn after a grant polls anew, so this process queues behind the other processes' waiters, and
   * the release, which keeps the lease for the head of the queue, lets none of this process's
   * threads pass them (ADR 37).
   */
  static final class LocalTurns {
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
     * @param waitNanos 0: no wait, and none ahead of a waiting thread; less than 0: no wait, ahead
     *     of any waiting thread (a fair semaphore's untimed try)
     * @return the turn, or {@code null} when another thread kept it through the wait, or this
     *     thread holds it
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
}
