package dev.writerfence.aspectj;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts acquires, releases and busy attempts per fence name, as the fence reports them. */
final class RecordingListener implements FenceListener {
  private final ConcurrentMap<String, AtomicInteger> acquired = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, AtomicInteger> released = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, AtomicInteger> busyAttempts = new ConcurrentHashMap<>();

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    bump(acquired, lease.fenceName());
  }

  @Override
  public void released(FenceLease lease, boolean freed) {
    bump(released, lease.fenceName());
  }

  @Override
  public void busyAttempt(FenceRequest request, int attempt) {
    bump(busyAttempts, request.fenceName());
  }

  @Override
  public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {}

  /**
   * @param fenceName a fence name
   * @return leases acquired on it so far
   */
  int acquires(String fenceName) {
    return count(acquired, fenceName);
  }

  /**
   * @param fenceName a fence name
   * @return releases of its leases so far
   */
  int releases(String fenceName) {
    return count(released, fenceName);
  }

  /**
   * @param fenceName a fence name
   * @return acquire attempts that found it busy so far
   */
  int busyAttempts(String fenceName) {
    return count(busyAttempts, fenceName);
  }

  /**
   * @param prefix a fence name prefix
   * @return events of any kind on fence names starting with it
   */
  int eventsStartingWith(String prefix) {
    int n = 0;
    for (ConcurrentMap<String, AtomicInteger> m :
        java.util.List.of(acquired, released, busyAttempts)) {
      for (var e : m.entrySet()) {
        if (e.getKey().startsWith(prefix)) {
          n += e.getValue().get();
        }
      }
    }
    return n;
  }

  private static void bump(ConcurrentMap<String, AtomicInteger> m, String fenceName) {
    m.computeIfAbsent(fenceName, k -> new AtomicInteger()).incrementAndGet();
  }

  private static int count(ConcurrentMap<String, AtomicInteger> m, String fenceName) {
    AtomicInteger n = m.get(fenceName);
    return n == null ? 0 : n.get();
  }
}
