package dev.writerfence;

import dev.writerfence.bootstrap.CarriedHolds;
import dev.writerfence.bootstrap.HeldFenceStack;
import dev.writerfence.context.HeldFences;
import dev.writerfence.context.HoldCarryingExecutor;
import dev.writerfence.context.HoldCarryingExecutorService;
import dev.writerfence.context.HoldCarryingScheduledExecutorService;
import dev.writerfence.internal.FenceArguments;
import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.internal.weaving.WeavableFence;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.store.lease.PgLeaseStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The writer fence: one shared barrier per fence name, held in PostgreSQL.
 *
 * <pre>{@code
 * WriterFence fence = WriterFence.builder(dataSource).build();
 * fence.run(FenceRequest.of("corpus"), () -> uploadBatch());
 * }</pre>
 *
 * <p>A fenced call ({@link #call}, {@link #run}, or a woven method) is: acquire (busy retried with
 * Resilience4j backoff), run, release with the holder token that acquire minted. The guarded code
 * runs only with a confirmed lease; otherwise the caller gets {@link WriterFenceBusyException} or
 * {@link WriterFenceUnavailableException} and nothing runs.
 *
 * <p>Re-entrancy: a fenced call for a name the thread already holds in the same exclusion domain
 * (the lease store: for the lease-row backend, one DataSource object and one schema) runs inside
 * that hold, with no second acquire; a fence on another schema, database or DataSource object
 * acquires its own lease. A hold ends when its fenced call ends, or when the guarded code released
 * its lease early through {@link #release}.
 *
 * <p>Holds are per thread. Work handed to another thread runs inside them where the hand-off
 * carries them: {@link #wrap(Runnable)} and the other {@code wrap} methods, Micrometer's
 * context-propagation (key {@code writer-fence.holds}) or the Spring Boot starter's executors.
 *
 * <p>Lifecycle of a held lease (from {@link #call}, {@link #run}, {@link #callAsync}, a woven
 * method, and from {@link #acquire} or {@link #tryAcquire} until {@link #release}):
 *
 * <ul>
 *   <li><b>Renewal.</b> Renewal is on by default: every held lease is renewed in the background
 *       every third of its TTL ({@link Builder#renewInterval} sets another interval, never longer
 *       than a third of the TTL; {@link Builder#withoutRenewal} turns it off). The default TTL is
 *       {@link #DEFAULT_TTL}, 30 s, with renewal on or off: with renewal a crashed holder blocks
 *       others for at most 30 s while a long pass keeps its lease; without it, choose a TTL that
 *       outlasts the longest critical section. One timer thread per fence (daemon, {@code
 *       writer-fence-renewal}) does the timing; renewal of a lease stops the moment it is released
 *       or lost.
 *   <li><b>Loss.</b> A lease is lost when a renewal finds it expired or taken over, or when no
 *       acquire or renewal confirmed it within its TTL less a safety margin, counted on the JVM's
 *       monotonic clock from when the statement was sent (the database was unreachable, or the
 *       process was paused). From then on {@link FenceLease#isValid()} is {@code false}, {@link
 *       FenceLease#checkValid()} throws {@link FenceLostException}, the listener hears {@link
 *       FenceListener#lost}, and no fenced call joins the hold ({@link #current} still shows it,
 *       lost, until the call ends). The guarded code keeps running: it learns of the loss from
 *       {@code checkValid()}, a callback of {@link FenceLease#onLost}, or an interrupt when its
 *       request asked for one ({@link FenceRequest.Builder#interruptOnLoss}); the call then ends in
 *       {@link FenceLostException}, and its lease is still released (harmless).
 *   <li><b>Shutdown.</b> One JVM shutdown hook per process, registered with the first lease,
 *       releases every lease the process still holds across all fences, within 2 s in all, so a
 *       SIGTERM in the middle of a pass frees the fence at once. {@link #close()} stops this
 *       fence's renewal and releases its leases.
 * </ul>
 *
 * <p>Thread-safe; build one per application and share it.
 */
public final class WriterFence extends WeavableFence implements AutoCloseable {
  /** TTL used when neither the request nor the builder sets one: 30 s, renewal on or off. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

  /** How long a waiter's ticket lasts without a poll, unless set: 5 seconds. */
  public static final Duration DEFAULT_QUEUE_LAPSE = Duration.ofSeconds(5);

  /** How often the head of a fence's queue polls, unless set: every 10 ms. */
  public static final Duration DEFAULT_QUEUE_POLL_INTERVAL = Duration.ofMillis(10);

  /** The shortest renewal interval a builder accepts: 100 milliseconds. */
  public static final Duration MIN_RENEW_INTERVAL = FenceArguments.MIN_RENEW_INTERVAL;

  /** Query timeout used when the builder sets none: 10 seconds. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(10);

  // The flow that runs every fenced call, handed to WeavableFence too: the weaving modes' entry
  // points (an internal package, not the user API) reach it there, running no code of this class.
  private final FencedCallFlow flow;

  private final FenceRuntime runtime;

  private WriterFence(Builder b) {
    this(new FencedCallFlow(FenceRuntime.of(b)));
  }

  private WriterFence(FencedCallFlow flow) {
    super(flow);
    this.flow = flow;
    this.runtime = flow.runtime();
  }

  /**
   * A fence on the lease-row backend ({@link PgLeaseStore}) over the given data source.
   *
   * <p>The fence bounds each statement with the {@linkplain Builder#queryTimeout query timeout},
   * but it cannot bound getting a connection: that is the data source's own setting. Configure
   * yours so that a database that accepts connections and never answers fails within about the
   * query timeout (pgjdbc's defaults wait forever): for pgjdbc {@code connectTimeout} and {@code
   * loginTimeout} (seconds) at the query timeout and {@code socketTimeout} a few seconds above; for
   * HikariCP also {@code connectionTimeout} and {@code validationTimeout} (ms) at or below it.
   *
   * @param dataSource hands out connections of their own (autocommit is used), never one bound to
   *     the caller's open transaction; a pool such as HikariCP is best; see above for its timeouts
   * @return a builder for a fence on the lease-row backend
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"), null);
  }

  /**
   * @param store the backend to use
   * @return a builder for a fence on that backend
   */
  public static Builder builder(LeaseStore store) {
    return new Builder(null, Objects.requireNonNull(store, "store"));
  }

  /**
   * The lease the current thread holds on a fence name, so code inside a fenced call can stamp its
   * writes with the fencing token. When the thread holds that name in several exclusion domains
   * (fences on other schemas or databases), the innermost wins; {@link #currentLease} asks one
   * fence's domain only. The lease of a method the agent fenced is shown too: the agent carries its
   * own copy of writer-fence, and this is a view of that copy's lease.
   *
   * <p>A lease lost while the call runs stays current until the call ends, so {@code
   * current(name).orElseThrow().checkValid()} throws {@link FenceLostException} naming why (ADR
   * 67); a nested fenced call does not join it, nor does the audit count writes under it.
   *
   * @param fenceName the fence name
   * @return the innermost lease this thread holds on it, in any domain, valid or lost, or empty
   *     outside any hold (a lease released early by the guarded code is no longer held); a lease of
   *     this thread's {@link #acquire} or {@link #tryAcquire} counts until its release, lost or not
   */
  public static Optional<FenceLease> current(String fenceName) {
    return HeldFences.current(null, fenceName).map(FenceLease::of);
  }

  /**
   * The lease the current thread holds on a fence name in this fence's exclusion domain: its lease
   * store (for the lease-row backend, the same DataSource object and schema).
   *
   * @param fenceName the fence name
   * @return the innermost lease this thread holds on it in this fence's domain, valid or lost (as
   *     for {@link #current}), or empty outside any hold
   */
  public Optional<FenceLease> currentLease(String fenceName) {
    return HeldFences.current(runtime.store(), fenceName).map(FenceLease::of);
  }

  /**
   * The current thread's holds, carried to a task that runs elsewhere: captured now, restored
   * wherever the returned task runs. There the task is inside its parent's holds while the parent's
   * leases stay valid: {@link #current} gives the parent's lease, the agent's audit counts its
   * writes as fenced, and a fenced call of the same name and domain joins the hold instead of
   * acquiring (or waiting for the parent). Once the parent's hold ends (its call returned, the
   * lease was released or lost), the task counts as outside it (a lease lost while the task runs
   * stays current there, lost, until the parent releases it: ADR 67).
   *
   * @param task the task; never {@code null}
   * @return {@code task} itself when the thread holds nothing, else the task wrapped in its holds
   * @throws NullPointerException when {@code task} is {@code null}
   */
  public static Runnable wrap(Runnable task) {
    return CarriedHolds.capture().wrap(task);
  }

  /**
   * The current thread's holds, carried to a task that runs elsewhere, as {@link #wrap(Runnable)}
   * does.
   *
   * @param task the task; never {@code null}
   * @param <V> what the task returns
   * @return {@code task} itself when the thread holds nothing, else the task wrapped in its holds
   * @throws NullPointerException when {@code task} is {@code null}
   */
  public static <V> Callable<V> wrap(Callable<V> task) {
    return CarriedHolds.capture().wrap(task);
  }

  /**
   * An executor whose tasks run inside the holds their submitter has at each submission ({@link
   * #wrap(Runnable)} for every task), so one wrapped executor serves many holders at once.
   *
   * @param executor the executor that runs the tasks; never {@code null}
   * @return the wrapping executor ({@code executor} itself when it carries holds already)
   * @throws NullPointerException when {@code executor} is {@code null}
   */
  public static Executor wrap(Executor executor) {
    return executor instanceof HoldCarryingExecutor
            || executor instanceof HoldCarryingExecutorService
        ? executor
        : new HoldCarryingExecutor(executor);
  }

  /**
   * An executor service whose tasks run inside the holds their submitter has at each submission
   * ({@code submit}, {@code execute}, {@code invokeAll}, {@code invokeAny}); shutting it down shuts
   * {@code executor} down.
   *
   * @param executor the executor that runs the tasks; never {@code null}
   * @return the wrapping executor ({@code executor} itself when it carries holds already)
   * @throws NullPointerException when {@code executor} is {@code null}
   */
  public static ExecutorService wrap(ExecutorService executor) {
    return executor instanceof HoldCarryingExecutorService
        ? executor
        : new HoldCarryingExecutorService(executor);
  }

  /**
   * A scheduled executor whose tasks run inside the holds their scheduler has when it schedules
   * them; a periodic task's runs count inside the hold only while that lease stays valid.
   *
   * @param executor the executor that runs the tasks; never {@code null}
   * @return the wrapping executor ({@code executor} itself when it carries holds already)
   * @throws NullPointerException when {@code executor} is {@code null}
   */
  public static ScheduledExecutorService wrap(ScheduledExecutorService executor) {
    return executor instanceof HoldCarryingScheduledExecutorService
        ? executor
        : new HoldCarryingScheduledExecutorService(executor);
  }

  /**
   * Tries once to take the lease, with no retry: the request's retry policy is not used. Busy is an
   * empty result, never an exception. The caller owns the lease and must {@link #release} it. Until
   * then it is on the thread's held-fence stack: {@link #current} shows it there, and a fenced call
   * ({@link #call}, {@link #run}, {@link #callAsync}, a woven method, the agent's advice) for the
   * same name in this fence's exclusion domain on the same thread joins this hold instead of
   * acquiring again.
   *
   * @param request the request; unset values take this fence's defaults; never {@code null}
   * @return the lease, or empty when another live holder has the fence, or another acquire of this
   *     fence (on another thread, or this thread's own) holds or is acquiring the name (its turn,
   *     ADR 16: no statement is sent then)
   * @throws WriterFenceUnavailableException when the database cannot confirm the lease (a transient
   *     error, SQLState 40001/40P01/55P03, is reported here too: this call does not retry), or this
   *     fence is closed
   */
  public Optional<FenceLease> tryAcquire(FenceRequest request) {
    Objects.requireNonNull(request, "request");
    return flow.acquire(request, BusyRetryPolicy.noRetry(), false).map(WriterFence::holdForCaller);
  }

  /**
   * Acquires the lease, retrying busy outcomes by the request's retry policy. The caller owns the
   * lease and must {@link #release} it; until then it is on the thread's held-fence stack, and a
   * fenced call for the same name in this fence's exclusion domain on the same thread joins this
   * hold, as for {@link #tryAcquire}. A second acquire of the same name on a thread that holds it
   * answers busy at once, without a statement.
   *
   * @param request the request; unset values take this fence's defaults
   * @return the lease; never {@code null}
   * @throws WriterFenceBusyException when another holder kept it through the last attempt
   * @throws WriterFenceInterruptedException when interrupted before or while waiting for its turn
   *     or to retry; no lease is held and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the database cannot confirm the lease, or this
   *     fence is closed
   */
  public FenceLease acquire(FenceRequest request) {
    return holdForCaller(flow.acquire(request, null, true).orElseThrow());
  }

  private static FenceLease holdForCaller(HeldLease lease) {
    lease.heldByCaller();
    // On the stack every copy of core reads (the agent's too), so their fenced calls join it.
    HeldFenceStack.push(lease.entry);
    return lease.view();
  }

  /**
   * Releases a lease with the holder token its acquire minted. Only that holder's row is freed; the
   * fencing-token counter stays. Its renewal stops first: no renew statement is sent after this
   * returns. A {@code false} answer is logged as a warning. A transient error (SQLState 40001,
   * 40P01, 55P03) rolled the release back and is retried with this fence's default retry policy.
   *
   * <p>A lost lease is released too (harmless: another holder's row is never freed); its loss was
   * logged once already, so neither a {@code false} answer nor a failure is logged again, and a
   * failure is answered {@code false} instead of thrown.
   *
   * <p>While a fenced call that joined this hold still has work running (a stage it returned, a
   * lazy result subscribed, a carried task's fenced call), the release is deferred until that work
   * ends: this returns {@code true} at once and the last of that work releases.
   *
   * @param lease a lease from this fence; never {@code null}
   * @return {@code true} when freed (or deferred to joined work still running); {@code false} when
   *     the lease had expired and another holder took it over, or it was already released (a second
   *     release of one lease sends nothing)
   * @throws IllegalArgumentException when the lease is another copy of writer-fence's (a method the
   *     agent fenced), which the call that took it releases
   * @throws WriterFenceUnavailableException when the database cannot be reached, or kept failing
   *     transiently through the last attempt, while the lease was not lost; the lease then expires
   *     after its TTL
   */
  public boolean release(FenceLease lease) {
    HeldLease held = HeldLease.of(Objects.requireNonNull(lease, "lease"));
    HeldFences.pop(lease); // on this thread; one released elsewhere drops off the stack later
    return held.release();
  }

  /**
   * Runs {@code body} under the fence: acquire (busy retried), run, release. Inside a hold of the
   * same fence name in this fence's domain, {@code body} just runs. When {@code body} released the
   * lease itself, it is not released again.
   *
   * @param request the request; never {@code null}
   * @param body the guarded code; never {@code null}
   * @param <T> the result type
   * @return what {@code body} returned
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceInterruptedException when interrupted before or while waiting for its turn
   *     or to retry; {@code body} did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed; {@code body} did
   *     not run
   * @throws FenceLostException when the request asked to be interrupted on loss ({@link
   *     FenceRequest.Builder#interruptOnLoss}) and the lease was lost before {@code body} ended
   * @throws Exception what {@code body} threw, with any release failure attached as suppressed
   */
  public <T> T call(FenceRequest request, Callable<T> body) throws Exception {
    Objects.requireNonNull(body, "body");
    return callWithLease(request, lease -> body.call());
  }

  /**
   * Runs {@code body} under the fence, like {@link #call}, and hands it the lease it runs under:
   * the one this call acquired, or the hold it joined. The body may throw a checked exception of
   * its own, which this method throws as it is; a body that throws none makes this method throw
   * none either ({@code E} is then inferred as {@link RuntimeException}).
   *
   * <pre>{@code
   * long written = fence.callWithLease(request, lease -> {
   *   lease.onLost(lost -> upload.abort()); // stop the transfer the moment the lease is gone
   *   return upload.send(lease.fencingToken());
   * });
   * }</pre>
   *
   * @param request the request; never {@code null}
   * @param body the guarded code, given the lease (never {@code null}); never {@code null}
   * @param <T> the result type
   * @param <E> what {@code body} may throw
   * @return what {@code body} returned
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceInterruptedException when interrupted before or while waiting for its turn
   *     or to retry; {@code body} did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed, or the hold the
   *     call joined was lost before {@code body} started; {@code body} did not run
   * @throws FenceLostException when the request asked to be interrupted on loss ({@link
   *     FenceRequest.Builder#interruptOnLoss}) and the lease was lost before {@code body} ended
   * @throws E what {@code body} threw, with any release failure attached as suppressed
   */
  public <T, E extends Exception> T callWithLease(FenceRequest request, FencedFunction<T, E> body)
      throws E {
    Objects.requireNonNull(body, "body");
    FencedCall call = enter(request);
    T result;
    try {
      result = body.apply(flow.leaseOf(call, request.fenceName()));
    } catch (Throwable t) {
      call.exit(null, t, Object.class);
      throw t;
    }
    // The result is handed back as it is, a stage too: only callAsync and woven methods hold until
    // a stage ends.
    call.exit(null, null, Object.class);
    return result;
  }

  /**
   * Runs {@code body} under the fence, like {@link #call} for code that returns nothing; a checked
   * exception of the body's own is thrown as it is, as by {@link #callWithLease}.
   *
   * @param request the request; never {@code null}
   * @param body the guarded code; never {@code null}
   * @param <E> what {@code body} may throw
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceInterruptedException when interrupted before or while waiting for its turn
   *     or to retry; {@code body} did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   * @throws FenceLostException when the request asked to be interrupted on loss ({@link
   *     FenceRequest.Builder#interruptOnLoss}) and the lease was lost before {@code body} ended
   * @throws E what {@code body} threw, with any release failure attached as suppressed
   */
  public <E extends Exception> void run(FenceRequest request, FencedRunnable<E> body) throws E {
    Objects.requireNonNull(body, "body");
    runWithLease(request, lease -> body.run());
  }

  /**
   * Runs {@code body} under the fence, like {@link #run}, and hands it the lease it runs under: the
   * one this call acquired, or the hold it joined.
   *
   * <pre>{@code
   * fence.runWithLease(request, lease -> {
   *   for (Batch batch : batches) {
   *     lease.checkValid();
   *     write(batch, lease.fencingToken());
   *   }
   * });
   * }</pre>
   *
   * @param request the request; never {@code null}
   * @param body the guarded code, given the lease (never {@code null}); never {@code null}
   * @param <E> what {@code body} may throw
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceInterruptedException when interrupted before or while waiting for its turn
   *     or to retry; {@code body} did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed, or the hold the
   *     call joined was lost before {@code body} started
   * @throws FenceLostException when the request asked to be interrupted on loss ({@link
   *     FenceRequest.Builder#interruptOnLoss}) and the lease was lost before {@code body} ended
   * @throws E what {@code body} threw, with any release failure attached as suppressed
   */
  public <E extends Exception> void runWithLease(FenceRequest request, FencedConsumer<E> body)
      throws E {
    Objects.requireNonNull(body, "body");
    callWithLease(
        request,
        lease -> {
          body.accept(lease);
          return null;
        });
  }

  /**
   * Runs asynchronous guarded code: the lease is taken before {@code body} starts and released when
   * the stage it returns completes, normally or not.
   *
   * @param request the request; never {@code null}
   * @param body starts the work and returns its stage; never {@code null}
   * @param <T> the result type
   * @return a future that completes, with the stage's outcome, after the release; cancelling it
   *     cancels neither the work nor the hold (cancel or complete {@code body}'s own stage instead)
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceInterruptedException when interrupted before or while waiting for its turn
   *     or to retry; {@code body} did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   */
  public <T> CompletableFuture<T> callAsync(
      FenceRequest request, Supplier<? extends CompletionStage<T>> body) {
    Objects.requireNonNull(body, "body");
    FencedCall call = enter(request);
    CompletionStage<T> stage;
    try {
      stage = body.get();
    } catch (Throwable t) {
      call.exit(null, t, CompletableFuture.class);
      throw t;
    }
    @SuppressWarnings("unchecked")
    CompletableFuture<T> future =
        (CompletableFuture<T>) call.exit(stage, null, CompletableFuture.class);
    return future;
  }

  /** The enter half of a fenced call; see {@link FencedCalls#enter}. */
  FencedCall enter(FenceRequest request) {
    return flow.enter(FencedCalls.Call.of(request, null));
  }

  /**
   * @param fenceName the fence name
   * @return the fence's row as operators see it (holder label, token, expiry, state), or empty when
   *     the name was never acquired
   * @throws WriterFenceUnavailableException when the database cannot be reached
   */
  public Optional<LeaseStatus> status(String fenceName) {
    return runtime.store().status(FenceArguments.fenceName(fenceName));
  }

  /**
   * @return the TTL used when a request sets none
   */
  public Duration defaultTtl() {
    return runtime.defaultTtl();
  }

  /**
   * @return the busy retry policy used when a request sets none
   */
  @Override
  public BusyRetryPolicy defaultRetryPolicy() {
    return runtime.defaultRetryPolicy();
  }

  /**
   * @return the priority in a fence's queue of waiters of requests that set none: -100 to 100
   */
  public int defaultPriority() {
    return runtime.defaultPriority();
  }

  /**
   * @return how long a waiter's ticket lasts without a poll: whole seconds from 1 to 60
   */
  public Duration queueLapse() {
    return runtime.queueLapse();
  }

  /**
   * @return how often the head of a fence's queue polls for the lease: 1 ms to 1 s
   */
  public Duration queuePollInterval() {
    return runtime.queuePollInterval();
  }

  /**
   * @return whether a waiter that cannot be served in its budget gives up at once (busy early)
   */
  public boolean queueBusyEarly() {
    return runtime.queueBusyEarly();
  }

  /**
   * @return how queued writers learn of a release: {@code notified}, {@code polled}, {@code
   *     pending} (until a wait proved either) or {@code off} (ADR 65)
   */
  public String queueWakeUp() {
    return runtime.queueWakeUp();
  }

  /**
   * @param ttl a lease's TTL
   * @return how often a held lease of that TTL is renewed (the configured interval, at most a third
   *     of the TTL), or empty when renewal is off
   */
  public Optional<Duration> renewInterval(Duration ttl) {
    return runtime.keeper().intervalFor(Objects.requireNonNull(ttl, "ttl"));
  }

  /**
   * Stops renewal and releases every lease this fence still holds, including leases whose fenced
   * call is still running (their guarded code learns of it from {@link FenceLease#checkValid()}).
   * From then on every acquire fails with {@link WriterFenceUnavailableException}. Idempotent;
   * release failures are logged, not thrown. The data source is not closed.
   */
  @Override
  public void close() {
    if (!runtime.closed().compareAndSet(false, true)) {
      return;
    }
    for (HeldLease lease : runtime.keeper().leases()) {
      if (!lease.isReleased()) {
        lease.releaseAfter(null);
      }
    }
    runtime.keeper().close();
    if (runtime.releaseSignal() != null) {
      runtime.releaseSignal().close();
    }
  }

  /**
   * @return {@code true} once {@link #close()} was called
   */
  public boolean isClosed() {
    return runtime.closed().get();
  }

  /**
   * Builds a {@link WriterFence}. Not thread-safe. A DataSource of yours should bound its own waits
   * by about the query timeout ({@link WriterFence#builder(DataSource)} says how).
   */
  public static final class Builder extends FenceSettings {
    private Builder(DataSource dataSource, LeaseStore store) {
      super(dataSource, store);
    }

    /**
     * @return the fence
     * @throws IllegalArgumentException when a setting breaks its rule
     * @throws IllegalStateException when renewal is on and the store {@linkplain
     *     LeaseStore#renewsLeases() cannot renew} (the lease-RPC backend): build it {@link
     *     #withoutRenewal()}
     */
    public WriterFence build() {
      return new WriterFence(this);
    }
  }
}
