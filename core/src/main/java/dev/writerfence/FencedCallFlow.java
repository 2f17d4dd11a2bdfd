package dev.writerfence;

import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFences;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.TransientLeaseStoreException;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicBoolean;
import jdk.jfr.FlightRecorder;

/**
 * A fenced call's arc, read top to bottom in {@link #enter}: the one entry of every fenced call of
 * a {@link WriterFence} (its API, and the weaving modes, to which the fence hands this flow as its
 * {@link FencedCalls.Core}).
 *
 * <ol>
 *   <li><b>Join</b> a hold the thread has of the fence name in this fence's domain ({@link
 *       JoinedCall}): no acquire, and nothing to release at exit.
 *   <li><b>Take the local turn</b> ({@link LocalTurns}): one thread per process and name asks the
 *       store.
 *   <li><b>Acquire from the store</b>: one plain attempt when the turn was free, otherwise (and
 *       after a busy answer) the queue's polls or the policy's backoff ({@link AcquireAttempts}).
 *   <li><b>Hold</b> the granted lease ({@link HeldLease#hold}), wrapped in its {@link
 *       RenewingLease}, which renews it and declares it lost.
 *   <li><b>Push</b> the hold on the thread's held-fence stack.
 * </ol>
 *
 * <p>The exit, {@link HeldLease#exit}, runs the arc back: pop the entry, release (the renewing
 * lease stops renewing, then the store's release statement), give the turn back.
 *
 * <p>An uncontended call takes each step once, in that order, entering no class twice on the way
 * (ADR 34): the steps of the first attempt are written out in {@link #enter}, and what only a
 * contended, failing or listened-to call needs is in the methods below it.
 */
final class FencedCallFlow implements FencedCalls.Core {
  private final FenceRuntime runtime;
  private final LeaseStore store;
  private final RenewingLease.Context keeping;
  private final FenceListener listener; // null: none, and nothing is told
  private final ObservedFence observer; // null: no observation registry, and nothing is observed
  private final AtomicBoolean closed;
  private final Duration defaultTtl;
  private final String defaultLabel;
  private final int defaultPriority;
  private final BusyRetryPolicy defaultPolicy;
  private final Retry defaultRetry;
  private final ConcurrentMap<BusyRetryPolicy, Retry> retries = new ConcurrentHashMap<>();
  private final LocalTurns turns;
  private final QueuePolls polls;
  private final QueuePace pace; // null: waiters wait out their budget (queue.busy-early=false)
  private final boolean queues; // the store keeps a queue of waiters (contract version 2)
  private final boolean defaultQueues; // and the default policy waits in it
  private final boolean defaultHasMaxWait;

  FencedCallFlow(FenceRuntime runtime) {
    this.runtime = runtime;
    this.store = runtime.store();
    this.keeping = runtime.keeping();
    this.listener = runtime.listener();
    this.observer = runtime.observer();
    this.closed = runtime.closed();
    this.defaultTtl = runtime.defaultTtl();
    this.defaultLabel = runtime.defaultHolderLabel();
    this.defaultPriority = runtime.defaultPriority();
    this.defaultPolicy = runtime.defaultRetryPolicy();
    this.defaultRetry = retry(defaultPolicy);
    this.queues = store.keepsQueue();
    this.defaultQueues = queues && defaultPolicy.maxAttempts() > 1;
    this.defaultHasMaxWait = defaultPolicy.maxWait() != null;
    this.polls =
        new QueuePolls(runtime.queuePollInterval(), runtime.queueLapse(), runtime.releaseSignal());
    this.turns = new LocalTurns(store, runtime.queueLapse());
    this.pace = runtime.queueBusyEarly() ? new QueuePace() : null;
  }

  /**
   * The enter half of a fenced call: join a hold of the thread, or take the turn, acquire, hold and
   * push. See {@link FencedCalls#enter}.
   *
   * @param call the checked call; never {@code null}
   * @return the call, to exit once, on this thread
   */
  @Override
  public FencedCall enter(FencedCalls.Call call) {
    return enter(call, null);
  }

  /**
   * {@link #enter(FencedCalls.Call)}, observed or not. Without an observation registry it runs once
   * with {@code watch} null; with one, a call that joins no hold is handed to the fence's {@link
   * ObservedFence}, which calls this again with the acquire's observation.
   *
   * @param watch the acquire's observation, told of the queue's first answer; {@code null} for none
   */
  FencedCall enter(FencedCalls.Call call, ObservedFence.Acquire watch) {
    String fenceName = call.fenceName();
    BusyRetryPolicy policy = call.retryPolicy();
    String advisoryKey = call.advisoryKey();
    boolean interruptOnLoss = call.interruptOnLoss();
    String takenBy = call.takenBy();
    Integer priority = call.priority();
    String label = call.holderLabel() != null ? call.holderLabel() : defaultLabel;
    Duration ttl = call.ttl() != null ? call.ttl() : defaultTtl;

    // 1. Join a hold of this domain on the thread, from a fenced call or an acquire, of any copy
    // of core. The stack is asked first: with no valid hold of the name at all, no domain is
    // compared.
    if (HeldFenceStack.holds(fenceName)) {
      FencedCall joined = join(fenceName, interruptOnLoss);
      if (joined != null) {
        return joined;
      } // the outer hold was released or lost meanwhile: acquire after it
    }
    if (closed.get()) {
      throw closedException(fenceName);
    }
    if (observer != null && watch == null) {
      // Observed only with a registry: without one no class of it is loaded and nothing is
      // allocated for it.
      return observer.held(this, call);
    }

    // 2. The local turn: a free turn with nobody waiting is taken at once, so the policy's wait
    // is not even read.
    long queued = System.nanoTime();
    LocalTurns.Turn turn =
        Thread.currentThread().isInterrupted() ? null : turns.takeFree(fenceName);
    UUID holderToken = UUID.randomUUID(); // one token for every attempt: a repeat is idempotent

    // 3. The store: with a queue, the first attempt of a turn taken at once, without a ticket, is
    // a plain acquire, so an uncontended call writes no ticket (ADR 37). Without a key text the
    // plain method: the hot path crosses no more classes (ADR 34).
    HeldLease.Grant grant = null;
    AcquireAttempts attempts = null;
    if (turn != null
        && (policy == null ? defaultQueues : queues && policy.maxAttempts() > 1)
        && !turn.hasTicket()) {
      long sent = System.nanoTime();
      Optional<StoreLease> answer;
      try {
        answer =
            advisoryKey == null
                ? store.acquire(fenceName, holderToken, label, ttl)
                : store.acquire(fenceName, advisoryKey, holderToken, label, ttl);
      } catch (TransientLeaseStoreException e) {
        answer = null; // the queue's retry counts it against the attempts
      } catch (RuntimeException e) {
        turn.giveBack();
        throw AcquireAttempts.sorted(e, this, call, fenceName, 1);
      } catch (Error e) {
        turn.giveBack();
        throw e;
      }
      if (answer != null && answer.isPresent()) {
        StoreLease lease = answer.get();
        // Read off the store's lease now, while its class is still the one running.
        long fencingToken = lease.fencingToken();
        Instant acquiredAt = lease.acquiredAt();
        Instant expiresAt = lease.expiresAt();
        if (queues) {
          // More threads of this fence wait for the name: queue for them now, so this process
          // holds a place through the section (behind those already waiting), and its release
          // keeps the lease for the head rather than for a late arrival.
          turn.queueAgainIfOthersWait(label, priority != null ? priority : defaultPriority, ttl);
        }
        grant = new HeldLease.Grant(lease, holderToken, fencingToken, acquiredAt, expiresAt, sent);
      } else {
        attempts =
            new AcquireAttempts(
                this, call, fenceName, label, ttl, policy, holderToken, queued, watch);
        attempts.answeredOnce(sent, answer == null);
      }
    }
    if (grant == null) {
      if (attempts == null) {
        attempts =
            new AcquireAttempts(
                this, call, fenceName, label, ttl, policy, holderToken, queued, watch);
      }
      turn = attempts.takeTurn(turn, true);
      grant = attempts.acquire(turn, true).orElseThrow();
    }

    // 4. Hold it: wrapped in its renewing lease, renewed and watched from now on.
    HeldLease held =
        HeldLease.hold(
            keeping,
            store,
            grant,
            fenceName,
            label,
            ttl,
            turn,
            takenBy != null ? takenBy : ApiCaller.find());
    if (listener != null) {
      told(held, attempts == null ? 1 : attempts.count(), queued);
    }
    if (FenceEvents.AVAILABLE && FlightRecorder.isInitialized()) { // JFR runs: a recording may ask
      FenceEvents.acquired(
          held, attempts == null ? 1 : attempts.count(), queued, AcquireAttempts.place(attempts));
    }
    if (interruptOnLoss) {
      held.renewing().interruptOnLoss();
    }
    // 5. Push it, named and kept: a lease the stack shows is renewed and watched.
    HeldFenceStack.push(held.entry);
    return held;
  }

  /**
   * The acquire of {@link WriterFence#acquire} and {@link WriterFence#tryAcquire}: the turn, the
   * attempts and the hold, not pushed; empty when still busy after the last attempt and {@code
   * busyThrows} is false.
   *
   * @param policy the policy; {@code null} for the request's, or else the fence's default
   */
  Optional<HeldLease> acquire(FenceRequest request, BusyRetryPolicy policy, boolean busyThrows) {
    String fenceName = request.fenceName();
    if (closed.get()) {
      throw closedException(fenceName);
    }
    FencedCalls.Call call = FencedCalls.Call.of(request, null);
    return observer == null
        ? acquire(call, policy, busyThrows, null)
        : observer.acquired(this, call, policy, busyThrows);
  }

  /**
   * The rest of {@link #acquire(FenceRequest, BusyRetryPolicy, boolean)}.
   *
   * @param watch the acquire's observation; {@code null} for none
   */
  Optional<HeldLease> acquire(
      FencedCalls.Call call,
      BusyRetryPolicy policy,
      boolean busyThrows,
      ObservedFence.Acquire watch) {
    String fenceName = call.fenceName();
    BusyRetryPolicy asked = policy != null ? policy : call.retryPolicy();
    String label = call.holderLabel() != null ? call.holderLabel() : defaultLabel;
    Duration ttl = call.ttl() != null ? call.ttl() : defaultTtl;
    long queued = System.nanoTime();
    LocalTurns.Turn turn =
        Thread.currentThread().isInterrupted() ? null : turns.takeFree(fenceName);
    AcquireAttempts attempts =
        new AcquireAttempts(
            this, call, fenceName, label, ttl, asked, UUID.randomUUID(), queued, watch);
    turn = attempts.takeTurn(turn, busyThrows);
    if (turn == null) {
      return Optional.empty();
    }
    Optional<HeldLease.Grant> grant = attempts.acquire(turn, busyThrows);
    if (grant.isEmpty()) {
      return Optional.empty();
    }
    HeldLease held =
        HeldLease.hold(keeping, store, grant.get(), fenceName, label, ttl, turn, ApiCaller.find());
    if (listener != null) {
      told(held, attempts.count(), queued);
    }
    if (FenceEvents.AVAILABLE && FlightRecorder.isInitialized()) {
      FenceEvents.acquired(held, attempts.count(), queued, AcquireAttempts.place(attempts));
    }
    return Optional.of(held);
  }

  /** The lease a body runs under: the call's own, or the hold it joined. */
  FenceLease leaseOf(FencedCall call, String fenceName) {
    FenceLease own = call.lease();
    if (own != null) {
      return own;
    }
    return HeldFences.find(store, fenceName)
        .map(FenceLease::of)
        .orElseThrow(
            () ->
                new WriterFenceUnavailableException(
                    fenceName,
                    "writer-fence: fence '"
                        + fenceName
                        + "': the hold this call joined was lost before the guarded code started;"
                        + " it does not run",
                    null));
  }

  /** Throws for a fence name when the fence was closed (checked again after a turn's wait). */
  void refuseWhenClosed(String fenceName) {
    if (closed.get()) {
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
   * Joins the thread's hold of {@code fenceName} in this fence's domain.
   *
   * @return the joined call, or {@code null} when there is none (or it ended meanwhile)
   */
  private FencedCall join(String fenceName, boolean interruptOnLoss) {
    Optional<HeldFenceStack.Entry> outer = HeldFences.find(store, fenceName);
    if (outer.isEmpty()) {
      return null;
    }
    return interruptOnLoss
        ? JoinedCall.JoinedInterruptible.of(outer.get())
        : JoinedCall.Joined.of(outer.get());
  }

  /** The listener hears of the acquire: from the call's start, its wait for the turn included. */
  private void told(HeldLease held, int attempts, long queuedNanos) {
    try {
      Duration toWin = Duration.ofNanos(System.nanoTime() - queuedNanos);
      FenceLease view = held.view();
      ListenerCalls.notify(() -> listener.acquired(view, attempts, toWin));
    } catch (Throwable t) { // a VirtualMachineError: nobody will own the lease, so give it back
      held.releaseAfter(t);
      throw t;
    }
  }

  // What the attempts of a contended or listened-to call read of this flow.

  FenceListener listener() {
    return listener;
  }

  /** What the fence built this flow from. */
  FenceRuntime runtime() {
    return runtime;
  }

  @Override
  public LeaseStore store() {
    return store;
  }

  LocalTurns turns() {
    return turns;
  }

  QueuePolls polls() {
    return polls;
  }

  /**
   * @return the fence's queue pace, or {@code null} when waiters wait out their budget
   */
  QueuePace pace() {
    return pace;
  }

  int priority(FencedCalls.Call call) {
    return call.priority() != null ? call.priority() : defaultPriority;
  }

  BusyRetryPolicy policyOrDefault(BusyRetryPolicy policy) {
    return policy != null ? policy : defaultPolicy;
  }

  /**
   * The backoff of a policy's attempts, or {@code null} when the call waits in the store's queue
   * instead (ADR 37); read through fields for the default policy.
   *
   * @param waitedNanos how long the call waited for its turn (a policy cut after a wait is not
   *     kept: there may be as many cuts as attempts)
   */
  Retry retryOrNull(BusyRetryPolicy policy, boolean waited, long waitedNanos) {
    if (policy == null ? defaultQueues : queues && policy.maxAttempts() > 1) {
      return null;
    }
    Retry retry =
        policy == null ? defaultRetry : retries.computeIfAbsent(policy, FencedCallFlow::retry);
    if (waited || (policy == null ? defaultHasMaxWait : policy.maxWait() != null)) {
      BusyRetryPolicy p = policyOrDefault(policy);
      BusyRetryPolicy rest = p.afterWaiting(Duration.ofNanos(waitedNanos));
      retry = rest == p ? retry : retry(rest);
    }
    return retry;
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
}
