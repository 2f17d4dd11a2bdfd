package dev.writerfence.store.advisory;

/**
 * {@code pg_advisory_unlock} answered {@code false} at release: the pinned session no longer held
 * the fence's advisory lock. Something unlocked it on that session, or the session was reset or
 * swapped under the store (a pooler that multiplexes sessions, a {@code DISCARD ALL}), so another
 * writer may have held the fence while this holder believed it held it. Raised, and logged as an
 * error by {@link AdvisoryLockStore}, never ignored (case C19). The pinned connection has been
 * given back; nothing is left to release.
 */
public final class AdvisoryUnlockException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  private final String fenceName;
  private final long key;

  /**
   * @param fenceName the fence whose release found no lock; never {@code null}
   * @param fencingToken the lease's fencing token
   * @param holderLabel the lease's holder label, or {@code null}
   * @param key the fence's advisory-lock key ({@link AdvisoryKeys#keyOf})
   * @param backendPid the server process of the pinned session
   */
  AdvisoryUnlockException(
      String fenceName, long fencingToken, String holderLabel, long key, int backendPid) {
    super(
        "writer-fence: fence '"
            + fenceName
            + "' (fencing token "
            + fencingToken
            + ", holder '"
            + holderLabel
            + "'): pg_advisory_unlock("
            + key
            + ") answered false on the pinned session (server process "
            + backendPid
            + "): the session no longer held the lock, so the fence may not have been exclusive"
            + " during this hold; check the writes stamped with this fencing token");
    this.fenceName = fenceName;
    this.key = key;
  }

  /**
   * @return the fence name whose release found no lock; never {@code null}
   */
  public String fenceName() {
    return fenceName;
  }

  /**
   * @return the fence's advisory-lock key
   */
  public long key() {
    return key;
  }
}
