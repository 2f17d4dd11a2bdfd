package dev.writerfence.spi;

import java.time.Duration;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * What a {@link LeaseStoreProvider} reads to build its store: the settings every backend shares,
 * and the text of the backend's own {@code writer-fence.*} keys (such as {@code
 * advisory.key-scheme}), each already checked against its rule in the settings catalog.
 */
public interface StoreSettings {

  /**
   * @return where the store's connections come from: connections of their own, never one bound to a
   *     caller's open transaction; never {@code null}
   * @throws IllegalStateException while only checking ({@link LeaseStoreProvider#check})
   */
  DataSource dataSource();

  /**
   * @return the SQL contract's schema, a lower-case SQL identifier
   */
  String schema();

  /**
   * @return how long one statement may take; at least 1 s
   */
  Duration queryTimeout();

  /**
   * @return {@code renew-interval}: empty when unset (a third of each lease's TTL), {@link
   *     Duration#ZERO} for off
   */
  Optional<Duration> renewInterval();

  /**
   * @param key a key without the {@code writer-fence.} prefix, such as {@code advisory.pool-size}
   * @return its value as text, stripped, already checked against its rule; empty when unset
   */
  Optional<String> text(String key);
}
