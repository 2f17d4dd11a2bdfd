package dev.writerfence.benchmarks.peers;

/**
 * One lock implementation under test, reduced to the cycle every benchmark measures: try once to
 * take the lock of a name, and release it at once when it was taken. writer-fence's kinds also
 * offer the cycle a real writer runs ({@link #cycleWaiting}: the fence's own call, busy retried).
 *
 * <p>Every backend is safe to share between threads. Whether threads share one is the benchmark's
 * choice: the contention benchmark decides by its {@code contenders} parameter, the cycle benchmark
 * by {@link Kind#sharedAcrossThreads()}.
 */
public interface LockBackend extends AutoCloseable {

  /**
   * @return which implementation this is
   */
  Kind kind();

  /**
   * Tries once to take the lock of {@code name} (never waits on another holder) and, when taken,
   * runs {@code criticalSection} and releases the lock.
   *
   * @param name the lock (fence) name; never {@code null}
   * @param criticalSection what runs while the lock is held; never {@code null}
   * @return {@code true} when the lock was taken (and released), {@code false} when it was busy
   * @throws RuntimeException what the implementation throws when its server cannot answer
   */
  boolean cycle(String name, Runnable criticalSection);

  /**
   * What a writer of this library runs: the high-level call with the library's default busy retry
   * (it may wait), then {@code criticalSection}, then the release. Only kinds whose {@link
   * Kind#retries()} is {@code true} offer it.
   *
   * @param name the lock (fence) name; never {@code null}
   * @param criticalSection what runs while the lock is held; never {@code null}
   * @return {@code true} when the lock was taken (and released), {@code false} when the call
   *     answered busy after its whole retry schedule
   * @throws UnsupportedOperationException naming the kind, when it has no such call here
   * @throws RuntimeException what the implementation throws when its server cannot answer
   */
  default boolean cycleWaiting(String name, Runnable criticalSection) {
    throw new UnsupportedOperationException(
        "backend '"
            + kind().id()
            + "' has no waiting cycle (retry mode): only "
            + Kind.LEASE.id()
            + " and "
            + Kind.ADVISORY.id()
            + " do (writer-fence's own call, busy retried)");
  }

  /** Releases what the backend holds: pools, clients, timers. */
  @Override
  void close();

  /** The lock implementations measured, by the name used in benchmark parameters and reports. */
  enum Kind {
    /** writer-fence, lease-row backend ({@code WriterFence.tryAcquire} + {@code release}). */
    LEASE("lease", true, true),
    /** writer-fence, advisory-lock backend, through the same WriterFence API. */
    ADVISORY("advisory", true, true),
    /** ShedLock's {@code JdbcTemplateLockProvider}, using the database time. */
    SHEDLOCK("shedlock", true, false),
    /** Spring Integration's {@code JdbcLockRegistry} over {@code DefaultLockRepository}. */
    JDBC_LOCK_REGISTRY("jdbcLockRegistry", false, false),
    /** Two autocommit single-row UPDATEs: the database's own floor for a two-statement cycle. */
    RAW_FLOOR("rawFloor", true, false),
    /** Redisson's {@code RLock} on a local redis-server: a non-PostgreSQL reference. */
    REDISSON("redisson", true, false);

    private final String id;
    private final boolean sharedAcrossThreads;
    private final boolean retries;

    Kind(String id, boolean sharedAcrossThreads, boolean retries) {
      this.id = id;
      this.sharedAcrossThreads = sharedAcrossThreads;
      this.retries = retries;
    }

    /**
     * @return the parameter value naming this kind, e.g. {@code jdbcLockRegistry}
     */
    public String id() {
      return id;
    }

    /**
     * Used by the uncontended cycle benchmark only (one name per thread), to keep its rows
     * comparable across runs; the contention benchmark ignores it.
     *
     * @return whether the cycle benchmark's threads share one instance; {@code false} for
     *     JdbcLockRegistry, measured there with an instance per thread since its first runs
     */
    public boolean sharedAcrossThreads() {
      return sharedAcrossThreads;
    }

    /**
     * @return whether the kind offers {@link LockBackend#cycleWaiting} (the contention benchmark's
     *     {@code retry} mode): writer-fence's kinds only
     */
    public boolean retries() {
      return retries;
    }

    /**
     * @param id a parameter value such as {@code lease}
     * @return the kind
     * @throws IllegalArgumentException naming the value and the allowed ones
     */
    public static Kind of(String id) {
      for (Kind k : values()) {
        if (k.id.equals(id)) {
          return k;
        }
      }
      StringBuilder allowed = new StringBuilder();
      for (Kind k : values()) {
        allowed.append(allowed.length() == 0 ? "" : ", ").append(k.id);
      }
      throw new IllegalArgumentException("backend '" + id + "' is not known: one of " + allowed);
    }
  }
}
