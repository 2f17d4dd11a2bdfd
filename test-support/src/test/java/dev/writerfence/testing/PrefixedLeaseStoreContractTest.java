package dev.writerfence.testing;

import dev.writerfence.spi.LeaseStore;

/** A prefixed store keeps every promise of the store it wraps: the whole lease-store contract. */
class PrefixedLeaseStoreContractTest extends LeaseStoreContract {
  private static final String URL = EmbeddedDatabase.get().jdbcUrl();
  private static final LeaseStore STORE = new Prefixed().open(URL, RACERS + 2);

  /** The lease row under a prefix of its own, in this JVM and in the contract's writer JVMs. */
  public static final class Prefixed implements LeaseStoreOpener {
    @Override
    public LeaseStore open(String jdbcUrl, int connections) {
      return new PrefixedLeaseStore(
          new LeaseStoreOpener.LeaseRow().open(jdbcUrl, connections), "contract-prefix:");
    }
  }

  @Override
  protected LeaseStore store() {
    return STORE;
  }

  @Override
  protected Class<? extends LeaseStoreOpener> opener() {
    return Prefixed.class;
  }

  @Override
  protected String storeUrl() {
    return URL;
  }
}
