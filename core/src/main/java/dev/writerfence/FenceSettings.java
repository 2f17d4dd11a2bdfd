package dev.writerfence;

import dev.writerfence.internal.FenceArguments;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.ReleaseSignal;
import dev.writerfence.store.lease.PgLeaseStore;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The settings of {@link WriterFence.Builder}, the public builder, which adds only its constructor
 * and {@code build()}: its setters are documented there. Read by the fence it builds.
 */
abstract class FenceSettings {

  final DataSource dataSource; // null: the store was given
  final LeaseStore store; // null: a PgLeaseStore over the data source
  String schema = FenceSchema.DEFAULT_SCHEMA;
  Duration defaultTtl = WriterFence.DEFAULT_TTL;
  String defaultHolderLabel = HolderLabel.instance();
  BusyRetryPolicy retryPolicy = BusyRetryPolicy.defaults();
  int defaultPriority;
  Duration queueLapse = WriterFence.DEFAULT_QUEUE_LAPSE;
  Duration queuePollInterval = WriterFence.DEFAULT_QUEUE_POLL_INTERVAL;
  boolean queueListen = true;
  boolean queueBusyEarly;
  ReleaseSignal.Direct queueListenDirect; // null: listen on the data source
  Duration queryTimeout = WriterFence.DEFAULT_QUERY_TIMEOUT;
  FenceListener listener; // null: none
  ObservedFence observer; // null: no observation registry
  Duration renewInterval; // null: a third of each lease's TTL
  boolean renews = true;
  boolean releaseOnJvmShutdown = true;

  /**
   * @param schema the contract's schema, {@code writer_fence} by default; a plain lower-case SQL
   *     identifier
   * @return this builder
   */
  public WriterFence.Builder schema(String schema) {
    this.schema = FenceSchema.checkIdentifier("schema", schema);
    return (WriterFence.Builder) this;
  }

  /**
   * @param ttl the TTL of requests that set none: whole seconds from 1 to 86400; default 30 s (with
   *     renewal on or off)
   * @return this builder
   * @throws IllegalArgumentException naming the value when it breaks the rule
   */
  public WriterFence.Builder defaultTtl(Duration ttl) {
    FenceArguments.ttlSeconds(ttl);
    this.defaultTtl = ttl;
    return (WriterFence.Builder) this;
  }

  /**
   * @param label the holder label of requests that set none, shown with this instance appended
   *     ({@link HolderLabel#of}: {@code label@host:pid}); up to 200 characters, no control or
   *     format characters; {@code null} for none (rows then show no label); default {@link
   *     HolderLabel#instance()}, {@code host:pid}
   * @return this builder
   * @throws IllegalArgumentException naming the label when it breaks that rule
   */
  public WriterFence.Builder defaultHolderLabel(String label) {
    this.defaultHolderLabel = HolderLabel.of(label);
    return (WriterFence.Builder) this;
  }

  /**
   * @param policy the busy retry policy of requests that set none; default {@link
   *     BusyRetryPolicy#defaults()}
   * @return this builder
   */
  public WriterFence.Builder retryPolicy(BusyRetryPolicy policy) {
    this.retryPolicy = Objects.requireNonNull(policy, "policy");
    return (WriterFence.Builder) this;
  }

  /**
   * @param priority the priority in a fence's queue of waiters of requests that set none: -100 to
   *     100, higher first, one level worth one second of waiting; default 0
   * @return this builder
   * @throws IllegalArgumentException naming the value when it is outside -100 to 100
   */
  public WriterFence.Builder defaultPriority(int priority) {
    this.defaultPriority = FenceArguments.priority(priority);
    return (WriterFence.Builder) this;
  }

  /**
   * How long a waiter's ticket in a fence's queue lasts without a poll: a process that stops
   * polling (killed, paused) loses its place after this long, and a lease kept for it on release
   * passes on. Waiters behind the head poll at least four times per lapse. A ticket lasts at most
   * half the TTL of the call that takes it (at least 1 s), so that a holder killed while other
   * threads of its process waited, whose grant queued again for them, holds the lease up no longer
   * than its TTL.
   *
   * @param lapse whole seconds from 1 to 60; default 5 s
   * @return this builder
   * @throws IllegalArgumentException naming the value when it breaks the rule
   */
  public WriterFence.Builder queueLapse(Duration lapse) {
    FenceArguments.lapseSeconds(lapse);
    this.queueLapse = lapse;
    return (WriterFence.Builder) this;
  }

  /**
   * How often the head of a fence's queue (and the waiter behind it) polls for the lease: the
   * longest gap between a release and the next holder's acquire when no notification arrives first.
   * Waiters further back poll less often (doubling per place, at most a quarter of the lapse), so
   * the load of many waiters stays bounded.
   *
   * @param interval from 1 ms to 1 s; default 10 ms
   * @return this builder
   * @throws IllegalArgumentException naming the value when it is outside that range
   */
  public WriterFence.Builder queuePollInterval(Duration interval) {
    this.queuePollInterval = FenceArguments.queuePollInterval(interval);
    return (WriterFence.Builder) this;
  }

  /**
   * Whether the writers of this fence that wait at the front of a queue learn of a release at once
   * ({@code LISTEN} on the lease row's notification of a release that found waiters) instead of at
   * their next poll: a shorter hand-over between processes, and fewer polls. One connection per
   * data source in the process (not per fence) listens while writers of the process wait (and a few
   * seconds after). Its first listening proves that notifications arrive, by sending one through
   * the data source and waiting up to a second for it; behind a transaction pooler (PgBouncer in
   * transaction mode), where they do not, the fence logs why once and polls ({@link
   * WriterFence#queueWakeUp()} says which). Default {@code true}.
   *
   * @param listen {@code true} to listen, {@code false} to poll without trying
   * @return this builder
   */
  public WriterFence.Builder queueListen(boolean listen) {
    this.queueListen = listen;
    return (WriterFence.Builder) this;
  }

  /**
   * Whether a writer waiting in a fence's queue gives up at once, busy, when at the queue's
   * measured pace it cannot be served within its budget: its expected wait, (place - 1) times the
   * time one hand-over took, exceeds what is left of the budget by a margin (1.5 times, 2 times
   * while only one hand-over was seen). While no hand-over has been seen it never gives up early.
   * The {@link WriterFenceBusyException} then says the place, the queue's length, the estimate and
   * the budget ({@link WriterFenceBusyException#expectedWait()}). Default {@code false}: the whole
   * budget is waited out (ADR 66 says why it is not on by default yet).
   *
   * @param busyEarly {@code true} to give up early, {@code false} to always wait out the budget
   * @return this builder
   */
  public WriterFence.Builder queueBusyEarly(boolean busyEarly) {
    this.queueBusyEarly = busyEarly;
    return (WriterFence.Builder) this;
  }

  /**
   * Where the release listener connects ({@code queue.listen-url}): a direct connection to
   * PostgreSQL, used by the listener alone, for an application whose statements go through a
   * transaction pooler that does not pass notifications on. The probe is still sent through the
   * fence's data source. One listener per URL and role in the process.
   *
   * @param url a {@code jdbc:postgresql:} URL, or {@code null} to listen on the data source
   * @param username the role; {@code null}: the URL's {@code user} parameter or the driver's
   *     default
   * @param password the password; {@code null}: the URL's {@code password} parameter or none
   * @return this builder
   * @throws IllegalArgumentException when {@code url} is not a {@code jdbc:postgresql:} URL
   */
  public WriterFence.Builder queueListenUrl(String url, String username, String password) {
    if (url == null) {
      this.queueListenDirect = null;
    } else {
      if (!url.startsWith("jdbc:postgresql:")) {
        throw new IllegalArgumentException(
            "writer-fence: queue.listen-url '" + url + "' is not allowed: a jdbc:postgresql: URL");
      }
      this.queueListenDirect = new ReleaseSignal.Direct(url, username, password);
    }
    return (WriterFence.Builder) this;
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
  public WriterFence.Builder queryTimeout(Duration timeout) {
    PgLeaseStore.queryTimeoutSeconds(Objects.requireNonNull(timeout, "timeout"));
    this.queryTimeout = timeout;
    return (WriterFence.Builder) this;
  }

  /**
   * Renews held leases every {@code interval} instead of every third of their TTL. A lease whose
   * TTL is shorter than three intervals is renewed every third of its TTL all the same. Turns
   * renewal on if {@link #withoutRenewal} turned it off.
   *
   * @param interval at least {@link WriterFence#MIN_RENEW_INTERVAL} (100 ms)
   * @return this builder
   * @throws IllegalArgumentException naming the value when it is shorter
   */
  public WriterFence.Builder renewInterval(Duration interval) {
    this.renewInterval = FenceArguments.renewInterval(interval);
    this.renews = true;
    return (WriterFence.Builder) this;
  }

  /**
   * Whether the process-wide JVM shutdown hook releases this fence's leases (default {@code true}).
   * The hook runs at SIGTERM while fenced code may still be running: it marks each lease released
   * first, so that code's next {@link FenceLease#checkValid()} fails, then frees the row within
   * about a second so the next writer need not wait for the TTL. A container that drains its work
   * before it closes the fence (Spring Boot's graceful shutdown, then {@link WriterFence#close()})
   * sets {@code false}, so leases are released only after the work that holds them has ended.
   *
   * @param release {@code false} to leave this fence's leases to {@link WriterFence#close()} or
   *     their TTL
   * @return this builder
   */
  public WriterFence.Builder releaseOnJvmShutdown(boolean release) {
    this.releaseOnJvmShutdown = release;
    return (WriterFence.Builder) this;
  }

  /**
   * Turns renewal off: a held lease keeps the expiry its acquire set, so its TTL must outlast the
   * critical section. It still counts as lost once its TTL (less the safety margin) has run out.
   *
   * @return this builder
   */
  public WriterFence.Builder withoutRenewal() {
    this.renews = false;
    this.renewInterval = null;
    return (WriterFence.Builder) this;
  }

  /**
   * @param listener receives every acquire and release outcome, and every loss; default none
   * @return this builder
   */
  public WriterFence.Builder listener(FenceListener listener) {
    this.listener = Objects.requireNonNull(listener, "listener");
    return (WriterFence.Builder) this;
  }

  /**
   * Observes every acquire (its wait in the queue included) and every hold, until its release or
   * loss, as Micrometer observations {@code writer.fence.acquire} and {@code writer.fence.hold}: in
   * an application with Micrometer Tracing they are spans, children of the span current when the
   * call began. Their keys are in docs/observability.md. Default none: then nothing is observed,
   * and the fenced path allocates nothing for it. Needs {@code
   * io.micrometer:micrometer-observation} on the class path (an optional dependency of core).
   *
   * @param registry the registry; never {@code null}; a no-op registry observes nothing
   * @return this builder
   * @throws NullPointerException when {@code registry} is null
   */
  public WriterFence.Builder observationRegistry(
      io.micrometer.observation.ObservationRegistry registry) {
    Objects.requireNonNull(registry, "registry");
    this.observer = registry.isNoop() ? null : new ObservedFence(registry, store);
    return (WriterFence.Builder) this;
  }

  FenceSettings(DataSource dataSource, LeaseStore store) {
    this.dataSource = dataSource;
    this.store = store;
  }
}
