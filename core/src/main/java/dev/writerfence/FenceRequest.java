package dev.writerfence;

import dev.writerfence.internal.FenceArguments;
import dev.writerfence.retry.BusyRetryPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * What a fenced call asks for: a fence name, and optionally a holder label, a TTL, a busy retry
 * policy, a priority in the fence's queue of waiters, and whether the call's thread is interrupted
 * when its lease is lost. Unset values take the defaults of the {@link WriterFence} that runs the
 * call.
 *
 * <p>Immutable. Built with {@link #of(String)} or {@link #builder(String)}; the values are checked
 * at build time with {@link FenceArguments}; a given holder label is decorated with this instance
 * ({@link HolderLabel}) at build time too.
 */
public final class FenceRequest {
  private final String fenceName;
  private final String holderLabel;
  private final Duration ttl;
  private final BusyRetryPolicy retryPolicy;
  private final Integer priority;
  private final boolean interruptOnLoss;
  private final String advisoryKey;

  private FenceRequest(Builder b) {
    this.fenceName = FenceArguments.fenceName(b.fenceName);
    this.holderLabel = HolderLabel.of(b.holderLabel);
    if (b.ttl != null) {
      FenceArguments.ttlSeconds(b.ttl);
    }
    this.ttl = b.ttl;
    this.retryPolicy = b.retryPolicy;
    this.priority = b.priority == null ? null : FenceArguments.priority(b.priority);
    this.interruptOnLoss = b.interruptOnLoss;
    this.advisoryKey = b.advisoryKey == null ? null : FenceArguments.advisoryKeyText(b.advisoryKey);
  }

  /**
   * @param fenceName the fence name: 1 to 200 characters, no control or format characters, no
   *     leading or trailing white space ({@link FenceArguments#fenceName})
   * @return a request with every other value left to the fence's defaults
   * @throws IllegalArgumentException when the name breaks the rule
   */
  public static FenceRequest of(String fenceName) {
    return builder(fenceName).build();
  }

  /**
   * @param fenceName the fence name: 1 to 200 characters, no control or format characters, no
   *     leading or trailing white space ({@link FenceArguments#fenceName})
   * @return a builder
   */
  public static Builder builder(String fenceName) {
    return new Builder(fenceName);
  }

  /**
   * @return the fence name; never {@code null}
   */
  public String fenceName() {
    return fenceName;
  }

  /**
   * @return the holder label the lease row will show, if set: the given label with this instance
   *     appended ({@link HolderLabel#of}), for example {@code upload@web-3:4711}
   */
  public Optional<String> holderLabel() {
    return Optional.ofNullable(holderLabel);
  }

  /**
   * @return the TTL, if set (whole seconds, 1 to 86400)
   */
  public Optional<Duration> ttl() {
    return Optional.ofNullable(ttl);
  }

  /**
   * @return the busy retry policy, if set
   */
  public Optional<BusyRetryPolicy> retryPolicy() {
    return Optional.ofNullable(retryPolicy);
  }

  /**
   * @return the priority in the fence's queue of waiters, if set: -100 to 100, higher first, one
   *     level worth one second of waiting
   */
  public OptionalInt priority() {
    return priority == null ? OptionalInt.empty() : OptionalInt.of(priority);
  }

  /**
   * @return {@code true} when the fenced call's thread is interrupted if its lease is lost while
   *     the call runs, and the call then ends in {@link FenceLostException} ({@link
   *     Builder#interruptOnLoss})
   */
  public boolean interruptOnLoss() {
    return interruptOnLoss;
  }

  /**
   * @return the advisory key text, if set: the text whose SHA-256 names the advisory lock this call
   *     takes in place of the store's key scheme ({@link Builder#advisoryKey})
   */
  public Optional<String> advisoryKey() {
    return Optional.ofNullable(advisoryKey);
  }

  /** The priority as core passes it on: {@code null} for the fence's default. */
  Integer priorityOrNull() {
    return priority;
  }

  @Override
  public String toString() {
    return "FenceRequest[fence="
        + fenceName
        + ", holder="
        + holderLabel
        + ", ttl="
        + ttl
        + ", retry="
        + retryPolicy
        + ", priority="
        + priority
        + ", interruptOnLoss="
        + interruptOnLoss
        + (advisoryKey == null ? "" : ", advisoryKey=" + advisoryKey)
        + "]";
  }

  /** Builds a {@link FenceRequest}. Not thread-safe. */
  public static final class Builder {
    private final String fenceName;
    private String holderLabel;
    private Duration ttl;
    private BusyRetryPolicy retryPolicy;
    private Integer priority;
    private boolean interruptOnLoss;
    private String advisoryKey;

    private Builder(String fenceName) {
      this.fenceName = fenceName;
    }

    /**
     * @param holderLabel up to 200 characters, no control or format characters ({@link
     *     FenceArguments#holderLabel}); the row shows it with this instance appended, {@code
     *     label@host:pid} ({@link HolderLabel#of}); {@code null} for the fence's default label
     * @return this builder
     */
    public Builder holderLabel(String holderLabel) {
      this.holderLabel = holderLabel;
      return this;
    }

    /**
     * @param ttl whole seconds from 1 to 86400; {@code null} for the fence's default TTL
     * @return this builder
     */
    public Builder ttl(Duration ttl) {
      this.ttl = ttl;
      return this;
    }

    /**
     * @param retryPolicy the busy retry policy; {@code null} for the fence's default
     * @return this builder
     */
    public Builder retryPolicy(BusyRetryPolicy retryPolicy) {
      this.retryPolicy = retryPolicy;
      return this;
    }

    /**
     * @param priority the place in the fence's queue of waiters: -100 to 100, higher first; one
     *     level is worth one second of waiting, so a waiter of priority {@code p} is served as if
     *     it had started waiting {@code p} seconds earlier (a lower priority still gets its turn);
     *     {@code null} for the fence's default (0 unless set)
     * @return this builder
     */
    public Builder priority(Integer priority) {
      this.priority = priority;
      return this;
    }

    /**
     * Whether the call's thread is interrupted when its lease is lost (a renewal found it taken
     * over, or no renewal confirmed it within its TTL) while the call runs. The interrupt reaches
     * the thread that entered the call, and only until the call ends: once it has ended the thread
     * is never interrupted for it, and an interrupt the fence sent is cleared as the call ends, so
     * the thread's next work does not inherit it (a thread interrupted already by someone else is
     * left as it is). A call whose lease was lost before it ended throws {@link
     * FenceLostException}, with what the guarded code threw (its {@code InterruptedException}, for
     * example) as the cause, after the usual release; its result, if it returned one, is dropped. A
     * nested call that joins a hold interrupts its thread while it runs, on the loss of that hold.
     * A call that returns a {@code CompletionStage} is interrupted only until it returns; {@link
     * FenceLease#onLost} can cancel the stage's own work. A fenced method returning a lazy result
     * (a Reactor {@code Mono} or {@code Flux}, an RxJava 3 type; {@code
     * dev.writerfence.internal.weaving.LazyResults}) interrupts no thread: each subscription is
     * cancelled when its lease is lost, and fails with {@link FenceLostException}. Default {@code
     * false}: the guarded code polls {@link FenceLease#checkValid()} or registers {@link
     * FenceLease#onLost}. For fenced calls ({@code call}, {@code run}, {@code callWithLease},
     * {@code runWithLease}, {@code callAsync}, the weaving modes' entry points); {@code acquire}
     * and {@code tryAcquire}, whose caller may release on any thread, ignore it. A release (the
     * call's own, {@link WriterFence#close}, the JVM shutdown hook) is no loss and interrupts
     * nothing.
     *
     * @param interrupt {@code true} to interrupt
     * @return this builder
     */
    public Builder interruptOnLoss(boolean interrupt) {
      this.interruptOnLoss = interrupt;
      return this;
    }

    /**
     * The text whose SHA-256 names the advisory lock this call takes, in place of the store's key
     * scheme ({@code advisory.key-scheme}): for joining writers outside writer-fence that lock a
     * key of their own, for example {@code vibey.integrate:proj:42} for a Python worker's {@code
     * pg_try_advisory_lock} on the first 8 bytes of {@code sha256("vibey.integrate:proj:42")} (ADR
     * 56). The fence name stays the call's identity (holds, logs, metrics, busy answers); every
     * call of one fence name must name the same key text. Only the advisory backend takes it: on
     * another backend the call is refused with {@link IllegalArgumentException} before any acquire,
     * never run unfenced.
     *
     * @param advisoryKey 1 to 1000 characters, no control or format characters ({@link
     *     FenceArguments#advisoryKeyText}); {@code null} for the store's key scheme
     * @return this builder
     */
    public Builder advisoryKey(String advisoryKey) {
      this.advisoryKey = advisoryKey;
      return this;
    }

    /**
     * @return the request
     * @throws IllegalArgumentException naming the bad value when a value breaks its rule
     */
    public FenceRequest build() {
      return new FenceRequest(this);
    }
  }
}
