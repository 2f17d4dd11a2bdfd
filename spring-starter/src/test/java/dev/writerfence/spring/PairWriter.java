package dev.writerfence.spring;

import dev.writerfence.WriterFence;
import dev.writerfence.annotation.WriterFenced;
import dev.writerfence.store.rpc.LeaseRpcContract;
import dev.writerfence.store.rpc.LeaseRpcStore;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The fenced bean of the lease-RPC tests: reports whether another writer of the same pair is busy
 * while the fenced call runs.
 */
public class PairWriter {
  private final DataSource pair;

  /**
   * @param pair where the other writer reaches the pair
   */
  public PairWriter(DataSource pair) {
    this.pair = pair;
  }

  @WriterFenced("{0}")
  public boolean otherWriterBusy(String fence) {
    return WriterFence.current(fence).isPresent()
        && otherWriter(pair)
            .acquire(fence, UUID.randomUUID(), "other", Duration.ofSeconds(5))
            .isEmpty();
  }

  /** Another writer of the pair, each fence name its own row (the fixtures' test seam). */
  static LeaseRpcStore otherWriter(DataSource pair) {
    return new LeaseRpcStore(
        pair,
        LeaseRpcContract.defaults().withFenceNameParameter(Optional.of("p_fence_name")),
        Duration.ofSeconds(5));
  }
}
