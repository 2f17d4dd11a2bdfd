package dev.writerfence.benchmarks.peers;

/**
 * One lock implementation under test, reduced to the cycle every benchmark measures: try once to
 * take the lock of a name, and release it at once when it was taken.
 *
 * <p>A backend is used by one thread at a time unless {@link Kind#sharedAcrossThreads()} says
 * otherwise; the harness gives each thread its own where it must (see {@link Backends}).
 */
public interface LockBackend extends AutoCloseable {

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

  /** Releases what the backend holds: pools, clients, timers. */
  @Override
  void close();

  /** The lock implementations measured, by the name used in benchmark parameters and reports. */
  enum Kind {
    /** writer-fence, lease-row backend ({@code WriterFence.tryAcquire} + {@code release}). */
    LEASE("lease", true),
    /** writer-fence, advisory-lock backend, through the same WriterFence API. */
    ADVISORY("advisory", true),
    /** ShedLock's {@code JdbcTemplateLockProvider}, using the database time. */
    SHEDLOCK("shedlock", true),
    /** Spring Integration's {@code JdbcLockRegistry} over {@code DefaultLockRepository}. */
    JDBC_LOCK_REGISTRY("jdbcLockRegistry", false),
    /** Two autocommit single-row UPDATEs: the database's own floor for a two-statement cycle. */
    RAW_FLOOR("rawFloor", true),
    /** Redisson's {@code RLock} on a local redis-server: a non-PostgreSQL reference. */
    REDISSON("redisson", true);

    private final String id;
    private final boolean sharedAcrossThreads;

    Kind(String id, boolean sharedAcrossThreads) {
      this.id = id;
      this.sharedAcrossThreads = sharedAcrossThreads;
    }

    /**
     * @return the parameter value naming this kind, e.g. {@code jdbcLockRegistry}
     */
    public String id() {
      return id;
    }

    /**
     * @return whether one instance serves many threads as many independent holders; {@code false}
     *     where the library keeps a process-local lock per name (JdbcLockRegistry), so a thread
     *     stands for a process only with an instance of its own
     */
    public boolean sharedAcrossThreads() {
      return sharedAcrossThreads;
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
