package dev.writerfence;

import dev.writerfence.context.HeldFences;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.store.LeaseStatus;
import dev.writerfence.store.LeaseStore;
import dev.writerfence.store.TransientLeaseStoreException;
import dev.writerfence.store.pg.PgLeaseStore;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The writer fence: one shared barrier per fence name, held in PostgreSQL.
 *
 * <pre>{@code
 * WriterFence fence = WriterFence.builder(dataSource).build();
 * fence.run(FenceRequest.of("corpus"), () -> uploadBatch());
 * }</pre>
 *
 * <p>A fenced call ({@link #call}, {@link #run}, {@link #proceed}) is: acquire (busy retried with
 * Resilience4j backoff), run, release with the holder token that acquire minted. The guarded code
 * runs only with a confirmed lease; otherwise the caller gets {@link WriterFenceBusyException} or
 * {@link WriterFenceUnavailableException} and nothing runs. A fenced call for a fence name the
 * thread already holds runs inside the existing hold, with no second acquire.
 *
 * <p>Thread-safe; build one per application and share it.
 */
public final class WriterFence {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFence.class);

  /** TTL used when neither the request nor the builder sets one: 60 seconds. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

  private final LeaseStore store;
  private final Duration defaultTtl;
  private final String defaultHolderLabel;
  private final BusyRetryPolicy defaultRetryPolicy;
  private final FenceListener listener;
  private final ConcurrentMap<BusyRetryPolicy, Retry> retries = new ConcurrentHashMap<>();
  private final Retry releaseRetry;

  private WriterFence(Builder b) {
    this.store =
        b.store != null ? b.store : new PgLeaseStore(b.dataSource, b.schema, b.queryTimeout);
    this.defaultTtl = b.defaultTtl;
    this.defaultHolderLabel = b.defaultHolderLabel;
    this.defaultRetryPolicy = b.retryPolicy;
    this.listener = b.listener;
    // A transient error rolled the release back, so repeating it is safe; giving up would leave
    // the lease held until its TTL.
    this.releaseRetry =
        Retry.of(
            "writer-fence-release",
            RetryConfig.<Boolean>custom()
                .maxAttempts(b.retryPolicy.maxAttempts())
                .intervalFunction(b.retryPolicy.intervalFunction())
                .retryOnException(e -> e instanceof TransientLeaseStoreException)
                .build());
  }

  /**
   * @param dataSource hands out connections of their own (autocommit is used), never one bound to
   *     the caller's open transaction; a pool such as HikariCP is best
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
   * writes with the fencing token.
   *
   * @param fenceName the fence name
   * @return the innermost lease this thread holds on it, or empty outside any hold
   */
  public static Optional<FenceLease> current(String fenceName) {
    return HeldFences.find(fenceName);
  }

  /**
   * Tries once to take the lease, with no retry. Busy is an empty result, never an exception. The
   * lease is not put on the thread's held-fence stack: the caller owns it and must {@link #release}
   * it.
   *
   * @param fenceName 1 to 200 characters, no control characters
   * @param holderLabel up to 200 characters, or {@code null} for the default label
   * @param ttl whole seconds from 1 to 86400, or {@code null} for the default TTL
   * @return the lease, or empty when another live holder has the fence
   * @throws IllegalArgumentException naming the bad value when an input breaks its rule
   * @throws WriterFenceUnavailableException when the database cannot confirm the lease (a transient
   *     error, SQLState 40001/40P01/55P03, is reported here too: this call does not retry)
   */
  public Optional<FenceLease> tryAcquire(String fenceName, String holderLabel, Duration ttl) {
    FenceRequest request =
        FenceRequest.builder(fenceName).holderLabel(holderLabel).ttl(ttl).build();
    return acquireAttempts(request, BusyRetryPolicy.noRetry(), false);
  }

  /**
   * Acquires the lease, retrying busy outcomes by the request's retry policy. The lease is not put
   * on the thread's held-fence stack: the caller owns it and must {@link #release} it.
   *
   * @param request the request; unset values take this fence's defaults
   * @return the lease; never {@code null}
   * @throws WriterFenceBusyException when another holder kept it through the last attempt
   * @throws WriterFenceUnavailableException when the database cannot confirm the lease
   */
  public FenceLease acquire(FenceRequest request) {
    BusyRetryPolicy policy = request.retryPolicy().orElse(defaultRetryPolicy);
    return acquireAttempts(request, policy, true).orElseThrow();
  }

  /**
   * Releases a lease with the holder token its acquire minted. Only that holder's row is freed; the
   * fencing-token counter stays. A {@code false} answer is logged as a warning. A transient error
   * (SQLState 40001, 40P01, 55P03) rolled the release back and is retried with this fence's default
   * retry policy.
   *
   * @param lease a lease from this fence; never {@code null}
   * @return {@code true} when freed; {@code false} when the lease had expired and another holder
   *     took it over, or it was already released
   * @throws WriterFenceUnavailableException when the database cannot be reached, or kept failing
   *     transiently through the last attempt; the lease then expires after its TTL
   */
  public boolean release(FenceLease lease) {
    Objects.requireNonNull(lease, "lease");
    boolean freed;
    try {
      freed = releaseRetry.executeSupplier(() -> store.release(lease));
    } catch (TransientLeaseStoreException e) {
      throw new WriterFenceUnavailableException(
          lease.fenceName(),
          "writer-fence: fence '"
              + lease.fenceName()
              + "': the release kept failing transiently (SQLState "
              + e.sqlState()
              + "); the lease frees itself at its expiry "
              + lease.expiresAt()
              + " (database clock)",
          e);
    } finally {
      lease.markReleased();
    }
    if (!freed) {
      LOG.warn(
          "writer-fence: release of fence '{}' (fencing token {}, holder '{}') found another holder"
              + " or a free row: the lease had expired",
          lease.fenceName(),
          lease.fencingToken(),
          lease.holderLabel());
    }
    notifyListener(() -> listener.released(lease, freed));
    return freed;
  }

  /**
   * Runs {@code body} under the fence: acquire (busy retried), run, release.
   *
   * @param request the request; never {@code null}
   * @param body the guarded code; never {@code null}
   * @param <T> the result type
   * @return what {@code body} returned
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceUnavailableException when the lease could not be confirmed; {@code body} did
   *     not run
   * @throws Exception what {@code body} threw, with any release failure attached as suppressed
   */
  public <T> T call(FenceRequest request, Callable<T> body) throws Exception {
    Objects.requireNonNull(body, "body");
    Optional<FenceLease> held = HeldFences.find(request.fenceName());
    if (held.isPresent()) {
      return body.call();
    }
    FenceLease lease = acquire(request);
    HeldFences.push(lease);
    try {
      return body.call();
    } catch (Throwable t) {
      HeldFences.pop(lease);
      releaseAfter(lease, t);
      throw t;
    } finally {
      if (lease.isValid()) {
        HeldFences.pop(lease);
        releaseAfter(lease, null);
      }
    }
  }

  /**
   * Runs {@code body} under the fence, like {@link #call} for code that returns nothing and throws
   * no checked exception.
   *
   * @param request the request; never {@code null}
   * @param body the guarded code; never {@code null}
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   */
  public void run(FenceRequest request, Runnable body) {
    Objects.requireNonNull(body, "body");
    try {
      call(
          request,
          () -> {
            body.run();
            return null;
          });
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("unreachable: Runnable threw a checked exception", e);
    }
  }

  /**
   * Runs asynchronous guarded code: the lease is taken before {@code body} starts and released when
   * the stage it returns completes, normally or not.
   *
   * @param request the request; never {@code null}
   * @param body starts the work and returns its stage; never {@code null}
   * @param <T> the result type
   * @return a future that completes, with the stage's outcome, after the release
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   */
  public <T> CompletableFuture<T> callAsync(
      FenceRequest request, Supplier<? extends CompletionStage<T>> body) {
    Objects.requireNonNull(body, "body");
    try {
      @SuppressWarnings("unchecked")
      CompletableFuture<T> future =
          (CompletableFuture<T>) proceed(request, CompletableFuture.class, body::get);
      return future;
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("unreachable: Supplier threw a checked exception", t);
    }
  }

  /**
   * The entry point every weaving mode calls (AspectJ, Spring AOP, the agent). Like {@link #call},
   * and when the invocation returns a {@link CompletionStage}, the lease is kept until that stage
   * completes. If {@code declaredReturnType} can hold a {@link CompletableFuture}, a future that
   * completes after the release is returned; otherwise the method's own stage is returned and the
   * release follows its completion.
   *
   * @param request the request; never {@code null}
   * @param declaredReturnType the advised method's declared return type; never {@code null}
   * @param invocation proceeds to the advised method; never {@code null}
   * @return the method's result
   * @throws WriterFenceBusyException when busy after the last attempt; the method did not run
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   * @throws Throwable what the method threw, with any release failure attached as suppressed
   */
  public Object proceed(
      FenceRequest request, Class<?> declaredReturnType, FencedInvocation invocation)
      throws Throwable {
    if (HeldFences.find(request.fenceName()).isPresent()) {
      return invocation.proceed();
    }
    FenceLease lease = acquire(request);
    HeldFences.push(lease);
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable t) {
      HeldFences.pop(lease);
      releaseAfter(lease, t);
      throw t;
    }
    HeldFences.pop(lease);
    if (result instanceof CompletionStage<?> stage) {
      return releaseOnCompletion(lease, stage, declaredReturnType);
    }
    releaseAfter(lease, null);
    return result;
  }

  /**
   * @param fenceName the fence name
   * @return the fence's row as operators see it (holder label, token, expiry, state), or empty when
   *     the name was never acquired
   * @throws WriterFenceUnavailableException when the database cannot be reached
   */
  public Optional<LeaseStatus> status(String fenceName) {
    return store.status(FenceArguments.fenceName(fenceName));
  }

  /**
   * @return the backend this fence uses
   */
  public LeaseStore store() {
    return store;
  }

  /**
   * @return the TTL used when a request sets none
   */
  public Duration defaultTtl() {
    return defaultTtl;
  }

  /**
   * @return the busy retry policy used when a request sets none
   */
  public BusyRetryPolicy defaultRetryPolicy() {
    return defaultRetryPolicy;
  }

  private Object releaseOnCompletion(
      FenceLease lease, CompletionStage<?> stage, Class<?> declaredReturnType) {
    CompletableFuture<Object> afterRelease = new CompletableFuture<>();
    stage.whenComplete(
        (value, failure) -> {
          releaseAfter(lease, failure);
          if (failure != null) {
            afterRelease.completeExceptionally(failure);
          } else {
            afterRelease.complete(value);
          }
        });
    return declaredReturnType.isAssignableFrom(CompletableFuture.class) ? afterRelease : stage;
  }

  /** Releases after the guarded code; never masks the code's own outcome. */
  private void releaseAfter(FenceLease lease, Throwable primary) {
    try {
      release(lease);
    } catch (RuntimeException e) {
      if (primary != null) {
        primary.addSuppressed(e);
      } else {
        LOG.warn(
            "writer-fence: release of fence '{}' (fencing token {}) failed; the lease frees itself"
                + " at its expiry {} (database clock)",
            lease.fenceName(),
            lease.fencingToken(),
            lease.expiresAt(),
            e);
      }
    }
  }

  private Optional<FenceLease> acquireAttempts(
      FenceRequest request, BusyRetryPolicy policy, boolean busyThrows) {
    String fenceName = request.fenceName();
    UUID holderToken = UUID.randomUUID(); // one token for every attempt: a repeat is idempotent
    String label = request.holderLabel().orElse(defaultHolderLabel);
    Duration ttl = request.ttl().orElse(defaultTtl);
    int[] attempts = {0};
    long started = System.nanoTime();
    Callable<Optional<FenceLease>> attempt =
        () -> {
          int n = ++attempts[0];
          Optional<FenceLease> lease = store.acquire(fenceName, holderToken, label, ttl);
          if (lease.isEmpty()) {
            notifyListener(() -> listener.busyAttempt(request, n));
          }
          return lease;
        };
    Optional<FenceLease> lease;
    try {
      lease = retryFor(policy).executeCallable(attempt);
    } catch (IllegalArgumentException | WriterFenceUnavailableException e) {
      if (e instanceof WriterFenceUnavailableException u) {
        notifyListener(() -> listener.unavailable(request, u));
      }
      throw e;
    } catch (TransientLeaseStoreException e) {
      throw unavailable(
          request,
          "writer-fence: fence '"
              + fenceName
              + "': the database kept failing transiently (SQLState "
              + e.sqlState()
              + ") through "
              + attempts[0]
              + " attempts; the guarded code did not run",
          e);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw unavailable(
          request, "writer-fence: fence '" + fenceName + "': acquire failed: " + e, e);
    }
    if (lease.isPresent()) {
      Duration waited = Duration.ofNanos(System.nanoTime() - started);
      notifyListener(() -> listener.acquired(lease.get(), attempts[0], waited));
      return lease;
    }
    if (!busyThrows) {
      return lease;
    }
    Optional<LeaseStatus> holder = busyHolder(fenceName);
    notifyListener(() -> listener.busy(request, attempts[0], holder));
    throw new WriterFenceBusyException(
        fenceName,
        attempts[0],
        holder.map(LeaseStatus::holderLabel).orElse(null),
        holder.map(LeaseStatus::expiresAt).orElse(null));
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
    notifyListener(() -> listener.unavailable(request, e));
    return e;
  }

  private Retry retryFor(BusyRetryPolicy policy) {
    return retries.computeIfAbsent(
        policy,
        p ->
            Retry.of(
                "writer-fence",
                RetryConfig.<Optional<FenceLease>>custom()
                    .maxAttempts(p.maxAttempts())
                    .intervalFunction(p.intervalFunction())
                    .retryOnResult(Optional::isEmpty)
                    .retryOnException(e -> e instanceof TransientLeaseStoreException)
                    .failAfterMaxAttempts(false)
                    .build()));
  }

  private void notifyListener(Runnable call) {
    try {
      call.run();
    } catch (RuntimeException e) {
      LOG.warn("writer-fence: a FenceListener threw; ignored", e);
    }
  }

  /** Builds a {@link WriterFence}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private final LeaseStore store;
    private String schema = FenceSchema.DEFAULT_SCHEMA;
    private Duration defaultTtl = DEFAULT_TTL;
    private String defaultHolderLabel = "pid-" + ProcessHandle.current().pid();
    private BusyRetryPolicy retryPolicy = BusyRetryPolicy.defaults();
    private Duration queryTimeout = Duration.ofSeconds(10);
    private FenceListener listener = new FenceListener() {};

    private Builder(DataSource dataSource, LeaseStore store) {
      this.dataSource = dataSource;
      this.store = store;
    }

    /**
     * @param schema the contract's schema, {@code writer_fence} by default; a plain lower-case SQL
     *     identifier
     * @return this builder
     */
    public Builder schema(String schema) {
      this.schema = FenceSchema.checkIdentifier("schema", schema);
      return this;
    }

    /**
     * @param ttl the TTL of requests that set none: whole seconds from 1 to 86400; default 60 s
     * @return this builder
     * @throws IllegalArgumentException naming the value when it breaks the rule
     */
    public Builder defaultTtl(Duration ttl) {
      FenceArguments.ttlSeconds(ttl);
      this.defaultTtl = ttl;
      return this;
    }

    /**
     * @param label the holder label of requests that set none; default {@code pid-<pid>}
     * @return this builder
     */
    public Builder defaultHolderLabel(String label) {
      this.defaultHolderLabel = FenceArguments.holderLabel(label);
      return this;
    }

    /**
     * @param policy the busy retry policy of requests that set none; default {@link
     *     BusyRetryPolicy#defaults()}
     * @return this builder
     */
    public Builder retryPolicy(BusyRetryPolicy policy) {
      this.retryPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * @param timeout how long one statement may take before the database counts as unavailable;
     *     whole seconds, at least 1; default 10 s
     * @return this builder
     */
    public Builder queryTimeout(Duration timeout) {
      this.queryTimeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    /**
     * @param listener receives every acquire and release outcome; default none
     * @return this builder
     */
    public Builder listener(FenceListener listener) {
      this.listener = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * @return the fence
     * @throws IllegalArgumentException when a setting breaks its rule
     */
    public WriterFence build() {
      return new WriterFence(this);
    }
  }
}
