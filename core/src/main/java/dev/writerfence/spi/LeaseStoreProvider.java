package dev.writerfence.spi;

/**
 * Registers a backend under the name {@code writer-fence.backend} gives it: the one place a backend
 * is added to every mode (the process fence, the agent and the Spring Boot starter). Found with
 * {@link java.util.ServiceLoader}: a backend lists its provider in {@code
 * META-INF/services/dev.writerfence.spi.LeaseStoreProvider}, as core does for {@code lease}, {@code
 * advisory} and {@code lease-rpc}.
 *
 * <p>Implementations are stateless and have a public no-argument constructor.
 */
public interface LeaseStoreProvider {

  /**
   * @return the backend's name, as {@code writer-fence.backend} writes it: lower case, such as
   *     {@code lease}; unique among the registered providers
   */
  String name();

  /**
   * Checks the backend's own settings without connecting, so that a bad value is named at start-up
   * (the agent's premain, Spring's binding). The default checks nothing.
   *
   * @param settings the fence's settings; {@link StoreSettings#dataSource()} must not be called
   * @throws IllegalArgumentException naming the setting whose value breaks its rule and what is
   *     allowed
   */
  default void check(StoreSettings settings) {}

  /**
   * Builds the store. A store that cannot renew leases says so ({@link LeaseStore#renewsLeases()});
   * its fence is then built without renewal.
   *
   * @param settings the fence's settings, checked by {@link #check}
   * @return the store, never {@code null}; whoever asked for it closes it ({@link
   *     LeaseStore#close()})
   * @throws IllegalArgumentException naming the setting whose value breaks its rule
   * @throws RuntimeException any start-up check of the backend's own (the advisory backend's
   *     self-check), with its message
   */
  LeaseStore create(StoreSettings settings);
}
