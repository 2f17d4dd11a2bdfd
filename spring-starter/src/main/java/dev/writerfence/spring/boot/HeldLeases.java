package dev.writerfence.spring.boot;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The leases this application holds right now, learnt from the fence's events, so that they can be
 * released when the application context closes ({@link WriterFenceShutdown}). A lease released
 * through the fence is forgotten at once, also when the release itself failed.
 */
public final class HeldLeases implements FenceListener {
  private final Set<FenceLease> leases = ConcurrentHashMap.newKeySet();

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    leases.add(lease);
  }

  @Override
  public void released(FenceLease lease, boolean freed) {
    leases.remove(lease);
  }

  /**
   * @return the leases acquired and not yet released through the fence
   */
  public List<FenceLease> held() {
    leases.removeIf(lease -> !lease.isValid()); // a release that failed marks the lease too
    return List.copyOf(leases);
  }
}
