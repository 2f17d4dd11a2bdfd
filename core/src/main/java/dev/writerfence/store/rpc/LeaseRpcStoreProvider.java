package dev.writerfence.store.rpc;

import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.LeaseStoreProvider;
import dev.writerfence.spi.StoreSettings;
import java.time.Duration;
import java.util.Optional;

/**
 * Registers an existing deployment's lease-RPC pair as {@code backend=lease-rpc}: a {@link
 * LeaseRpcStore} calling the {@code lease-rpc.*} functions. Its leases are not renewed (ADR 57), so
 * a renew interval other than off is refused and the fence is built without renewal.
 */
public final class LeaseRpcStoreProvider implements LeaseStoreProvider {
  /** The backend's name. */
  public static final String NAME = "lease-rpc";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void check(StoreSettings settings) {
    contract(settings);
  }

  @Override
  public LeaseStore create(StoreSettings settings) {
    return new LeaseRpcStore(settings.dataSource(), contract(settings), settings.queryTimeout());
  }

  /**
   * @throws IllegalArgumentException when a renew interval other than off is set: the existing pair
   *     cannot renew
   */
  private static LeaseRpcContract contract(StoreSettings settings) {
    Optional<Duration> renew = settings.renewInterval();
    if (renew.isPresent() && !renew.get().isZero()) {
      throw new IllegalArgumentException(
          "writer-fence: renew-interval '"
              + text(renew.get())
              + "' is not allowed with backend=lease-rpc: off (the existing acquire takes only a"
              + " free or expired row, so a lease lasts the TTL of its acquire; set ttl to outlast"
              + " the work)");
    }
    return new LeaseRpcContract(
        name(settings, "lease-rpc.acquire-function", LeaseRpcContract.DEFAULT_ACQUIRE_FUNCTION),
        name(settings, "lease-rpc.release-function", LeaseRpcContract.DEFAULT_RELEASE_FUNCTION),
        name(
            settings,
            "lease-rpc.holder-token-parameter",
            LeaseRpcContract.DEFAULT_HOLDER_TOKEN_PARAMETER),
        name(settings, "lease-rpc.holder-parameter", LeaseRpcContract.DEFAULT_HOLDER_PARAMETER),
        name(settings, "lease-rpc.ttl-parameter", LeaseRpcContract.DEFAULT_TTL_PARAMETER),
        settings
            .text("lease-rpc.fence-name-parameter")
            .map(v -> LeaseRpcContract.parameter("lease-rpc.fence-name-parameter", v)));
  }

  private static String name(StoreSettings settings, String key, String defaultName) {
    String value = settings.text(key).orElse(defaultName);
    return key.endsWith("-function")
        ? LeaseRpcContract.function(key, value)
        : LeaseRpcContract.parameter(key, value);
  }

  /** As the settings write a duration: {@code 10s}, or {@code 1500ms}. */
  private static String text(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }
}
