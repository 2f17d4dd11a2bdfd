package dev.writerfence.store.advisory;

import dev.writerfence.testing.EmbeddedDatabase;

/** Reads {@code pg_locks} as the superuser, for the advisory-lock tests. */
final class AdvisoryTestSupport {
  static final EmbeddedDatabase DB = EmbeddedDatabase.get();

  private AdvisoryTestSupport() {}

  /**
   * @param key an advisory-lock key
   * @return how many sessions hold it now
   */
  static long holdersOf(long key) {
    return DB.advisoryHolders(key);
  }

  /**
   * @return how many advisory locks on 64-bit keys any session holds now
   */
  static long advisoryLocks() {
    return DB.queryValue(
        Long.class,
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1");
  }

  /**
   * @return the last value the advisory backend's fencing-token sequence handed out
   */
  static long lastToken() {
    return DB.queryValue(Long.class, "SELECT last_value FROM writer_fence.advisory_fencing_token");
  }
}
