package dev.writerfence.spring.boot;

import dev.writerfence.FenceLease;
import dev.writerfence.WriterFence;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * Releases the leases still held when the application context closes (SIGTERM included), before the
 * DataSource closes: this bean depends on the fence, which depends on its DataSource, so Spring
 * destroys it first. A fenced call still running then finds its lease released and does not release
 * it again. A release that fails leaves the lease to its TTL, with one warning for all of them.
 */
public final class WriterFenceShutdown implements DisposableBean {
  private static final Logger LOG = LoggerFactory.getLogger(WriterFenceShutdown.class);

  private final WriterFence fence;
  private final HeldLeases heldLeases;

  /**
   * @param fence the fence the leases came from
   * @param heldLeases the leases held now
   */
  public WriterFenceShutdown(WriterFence fence, HeldLeases heldLeases) {
    this.fence = fence;
    this.heldLeases = heldLeases;
  }

  @Override
  public void destroy() {
    WriterFenceProcessDefault.clearIfSame(fence);
    List<FenceLease> held = heldLeases.held();
    List<String> failed = new ArrayList<>();
    RuntimeException firstFailure = null;
    for (FenceLease lease : held) {
      try {
        fence.release(lease);
      } catch (RuntimeException e) {
        failed.add(lease.fenceName() + " (expires " + lease.expiresAt() + ")");
        if (firstFailure == null) {
          firstFailure = e;
        }
      }
    }
    if (!held.isEmpty()) {
      LOG.info(
          "writer-fence: released {} of {} lease(s) held at shutdown",
          held.size() - failed.size(),
          held.size());
    }
    if (firstFailure != null) {
      LOG.warn(
          "writer-fence: could not release {} lease(s) at shutdown: {}; each frees itself at its"
              + " expiry (database clock). First failure: {}",
          failed.size(),
          failed,
          firstFailure.toString());
    }
  }
}
