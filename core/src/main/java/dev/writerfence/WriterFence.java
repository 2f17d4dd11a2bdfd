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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
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
 * {@link WriterFenceUnavailableException} and nothing runs.
 *
 * <p>Re-entrancy: a fenced call for a fence name the thread already holds in the same exclusion
 * domain runs inside the existing hold, with no second acquire. The domain is the lease store: for
 * the lease-row backend, one DataSource object and one schema, so two fences built on the same
 * DataSource and schema share their holds, while a fence on another schema or database (or another
 * DataSource object) acquires its own lease. A hold ends when its fenced call ends; a lease the
 * guarded code released early through {@link #release} is held no more from that moment.
 *
 * <p>Thread-safe; build one per application and share it.
 */
public final class WriterFence {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFence.class);

  /** TTL used when neither the request nor the builder sets one: 60 seconds. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(60);

  /** Query timeout used when the builder sets none: 10 seconds. */
  public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(10);

  private final LeaseStore store;
  private final Duration defaultTtl;
  private final String defaultHolderLabel;
  private final BusyRetryPolicy defaultRetryPolicy;
  private final FenceListener listener;
  private final LeaseAcquirer acquirer;
  private final Retry releaseRetry;

  private WriterFence(Builder b) {
    this.store =
        b.store != null ? b.store : new PgLeaseStore(b.dataSource, b.schema, b.queryTimeout);
    this.defaultTtl = b.defaultTtl;
    this.defaultHolderLabel = b.defaultHolderLabel;
    this.defaultRetryPolicy = b.retryPolicy;
    this.listener = b.listener;
    this.acquirer =
        new LeaseAcquirer(store, defaultTtl, defaultHolderLabel, listener, this::releaseAfter);
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
   * A fence on the lease-row backend ({@link PgLeaseStore}) over the given data source.
   *
   * <p>The fence bounds each statement with the {@linkplain Builder#queryTimeout query timeout},
   * but it cannot bound getting a connection: that is the data source's own setting. Configure
   * yours so that a database that accepts connections and never answers fails within about the
   * query timeout, as the data sources {@code WriterFenceSettings} builds do; otherwise a fenced
   * call waits as long as the data source does (pgjdbc's defaults wait forever). For pgjdbc set
   * {@code connectTimeout} and {@code loginTimeout} (seconds) to the query timeout and {@code
   * socketTimeout} a few seconds above it; for HikariCP also set {@code connectionTimeout} and
   * {@code validationTimeout} (milliseconds) at or below the query timeout.
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
   * fence's domain only.
   *
   * @param fenceName the fence name
   * @return the innermost lease this thread holds on it, in any domain, or empty outside any hold
   *     (a lease released early by the guarded code is no longer held)
   */
  public static Optional<FenceLease> current(String fenceName) {
    return HeldFences.find(fenceName);
  }

  /**
   * The lease the current thread holds on a fence name in this fence's exclusion domain: its lease
   * store (for the lease-row backend, the same DataSource object and schema).
   *
   * @param fenceName the fence name
   * @return the innermost lease this thread holds on it from this fence's store, or empty
   */
  public Optional<FenceLease> currentLease(String fenceName) {
    return HeldFences.find(store, fenceName);
  }

  /**
   * Tries once to take the lease, with no retry. Busy is an empty result, never an exception. The
   * lease is not put on the thread's held-fence stack: the caller owns it and must {@link #release}
   * it.
   *
   * @param fenceName 1 to 200 characters, no control or format characters, no leading or trailing
   *     white space ({@link FenceArguments#fenceName})
   * @param holderLabel up to 200 characters, no control or format characters, or {@code null} for
   *     the default label
   * @param ttl whole seconds from 1 to 86400, or {@code null} for the default TTL
   * @return the lease, or empty when another live holder has the fence
   * @throws IllegalArgumentException naming the bad value when an input breaks its rule
   * @throws WriterFenceUnavailableException when the database cannot confirm the lease (a transient
   *     error, SQLState 40001/40P01/55P03, is reported here too: this call does not retry)
   */
  public Optional<FenceLease> tryAcquire(String fenceName, String holderLabel, Duration ttl) {
    FenceRequest request =
        FenceRequest.builder(fenceName).holderLabel(holderLabel).ttl(ttl).build();
    return acquirer.acquire(request, BusyRetryPolicy.noRetry(), false);
  }

  /**
   * Acquires the lease, retrying busy outcomes by the request's retry policy. The lease is not put
   * on the thread's held-fence stack: the caller owns it and must {@link #release} it.
   *
   * @param request the request; unset values take this fence's defaults
   * @return the lease; never {@code null}
   * @throws WriterFenceBusyException when another holder kept it through the last attempt
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting to retry;
   *     no lease is held and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the database cannot confirm the lease
   */
  public FenceLease acquire(FenceRequest request) {
    BusyRetryPolicy policy = request.retryPolicy().orElse(defaultRetryPolicy);
    return acquirer.acquire(request, policy, true).orElseThrow();
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
    ListenerCalls.notify(() -> listener.released(lease, freed));
    return freed;
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
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting to retry;
   *     {@code body} did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed; {@code body} did
   *     not run
   * @throws Exception what {@code body} threw, with any release failure attached as suppressed
   */
  public <T> T call(FenceRequest request, Callable<T> body) throws Exception {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(body, "body");
    if (HeldFences.find(store, request.fenceName()).isPresent()) {
      return body.call();
    }
    FenceLease lease = acquire(request);
    Throwable primary = null;
    try {
      HeldFences.push(store, lease);
      return body.call();
    } catch (Throwable t) {
      primary = t;
      throw t;
    } finally {
      // The hold ends with the call, also when the body released the lease itself.
      HeldFences.pop(lease);
      if (lease.isValid()) {
        releaseAfter(lease, primary);
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
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting to retry;
   *     {@code body} did not run and the interrupt flag is still set
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
   * <p>Cancelling the returned future cancels neither the work nor the hold: it completes the
   * returned future only, while the stage {@code body} returned runs on and the lease stays held
   * until that stage completes. To stop the work, cancel or complete {@code body}'s own stage.
   *
   * @param request the request; never {@code null}
   * @param body starts the work and returns its stage; never {@code null}
   * @param <T> the result type
   * @return a future that completes, with the stage's outcome, after the release; cancelling it
   *     does not cancel the work nor release the lease early
   * @throws WriterFenceBusyException when busy after the last attempt; {@code body} did not run
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting to retry;
   *     {@code body} did not run and the interrupt flag is still set
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
   * release follows its completion. Cancelling that returned future does not cancel the method's
   * stage nor release the lease early: the release follows the method's own stage only.
   *
   * @param request the request; never {@code null}
   * @param declaredReturnType the advised method's declared return type; never {@code null}
   * @param invocation proceeds to the advised method; never {@code null}
   * @return the method's result
   * @throws WriterFenceBusyException when busy after the last attempt; the method did not run
   * @throws WriterFenceInterruptedException when the thread was interrupted while waiting to retry;
   *     the method did not run and the interrupt flag is still set
   * @throws WriterFenceUnavailableException when the lease could not be confirmed
   * @throws Throwable what the method threw, with any release failure attached as suppressed
   */
  public Object proceed(
      FenceRequest request, Class<?> declaredReturnType, FencedInvocation invocation)
      throws Throwable {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(declaredReturnType, "declaredReturnType");
    Objects.requireNonNull(invocation, "invocation");
    if (HeldFences.find(store, request.fenceName()).isPresent()) {
      return invocation.proceed();
    }
    FenceLease lease = acquire(request);
    Throwable primary = null;
    boolean releasedByStage = false;
    try {
      HeldFences.push(store, lease);
      Object result = invocation.proceed();
      if (result instanceof CompletionStage<?> stage) {
        CompletableFuture<Object> afterRelease = new CompletableFuture<>();
        stage.whenComplete(
            (value, failure) -> {
              if (lease.isValid()) {
                releaseAfter(lease, failure);
              }
              if (failure != null) {
                afterRelease.completeExceptionally(failure);
              } else {
                afterRelease.complete(value);
              }
            });
        releasedByStage = true;
        return declaredReturnType.isAssignableFrom(CompletableFuture.class) ? afterRelease : stage;
      }
      return result;
    } catch (Throwable t) {
      primary = t;
      throw t;
    } finally {
      // The hold on this thread ends here; an asynchronous body keeps its lease until its stage
      // completes, and a body that released the lease itself is not released again.
      HeldFences.pop(lease);
      if (!releasedByStage && lease.isValid()) {
        releaseAfter(lease, primary);
      }
    }
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

  /**
   * Builds a {@link WriterFence}. Not thread-safe. A user-supplied DataSource should bound its own
   * connect, login and read waits by about the query timeout (see {@link
   * WriterFence#builder(DataSource)}): the query timeout covers statements only.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private final LeaseStore store;
    private String schema = FenceSchema.DEFAULT_SCHEMA;
    private Duration defaultTtl = DEFAULT_TTL;
    private String defaultHolderLabel = "pid-" + ProcessHandle.current().pid();
    private BusyRetryPolicy retryPolicy = BusyRetryPolicy.defaults();
    private Duration queryTimeout = DEFAULT_QUERY_TIMEOUT;
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
     * @param timeout how long one statement may take before the database counts as unavailable; at
     *     least 1 second, and a fraction of a second is rounded up to the next whole second (JDBC's
     *     query timeout is whole seconds: 1.5 s becomes 2 s); default 10 s. It bounds statements
     *     only, not getting a connection from a user-supplied DataSource (see {@link
     *     WriterFence#builder(DataSource)})
     * @return this builder
     * @throws IllegalArgumentException naming the value when it is under 1 second
     */
    public Builder queryTimeout(Duration timeout) {
      PgLeaseStore.queryTimeoutSeconds(Objects.requireNonNull(timeout, "timeout"));
      this.queryTimeout = timeout;
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
