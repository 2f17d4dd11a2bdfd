package dev.writerfence.spring.actuate;

import dev.writerfence.WriterFence;
import dev.writerfence.spi.FencedCalls;
import dev.writerfence.store.LeaseStatus;
import java.math.BigDecimal;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The read-only {@code writerfence} actuator endpoint: the fence rows as operators see them (the
 * {@code lease_status} view; never a holder token). {@code GET /actuator/writerfence} lists every
 * fence; {@code GET /actuator/writerfence/{name}} one (404 when the name was never acquired).
 * Expose it with {@code management.endpoints.web.exposure.include=health,writerfence}.
 */
@Endpoint(id = WriterFenceEndpoint.ID)
public class WriterFenceEndpoint {
  /** The endpoint id. */
  public static final String ID = "writerfence";

  private final WriterFence fence;

  /**
   * @param fence the application's fence
   */
  public WriterFenceEndpoint(WriterFence fence) {
    this.fence = fence;
  }

  /**
   * @return every fence row, ordered by fence name
   */
  @ReadOperation
  public Leases leases() {
    return new Leases(FencedCalls.store(fence).statusAll().stream().map(Lease::of).toList());
  }

  /**
   * @param fenceName the fence name
   * @return its row, or {@code null} (404) when it was never acquired
   */
  @ReadOperation
  public Lease lease(@Selector String fenceName) {
    return fence.status(fenceName).map(Lease::of).orElse(null);
  }

  /**
   * The endpoint's answer.
   *
   * @param leases every fence row
   */
  public record Leases(List<Lease> leases) {}

  /**
   * One fence row. Times are ISO-8601 on the database clock.
   *
   * @param fenceName the fence name
   * @param holderLabel the current or last holder's label, or {@code null}
   * @param fencingToken the last fencing token issued
   * @param acquiredAt when the current or last lease was granted
   * @param expiresAt when it expires or expired; for a released lease, the release
   * @param secondsLeft seconds until expiry, 0 when not held
   * @param state {@code held}, {@code expired} or {@code free}
   */
  public record Lease(
      String fenceName,
      String holderLabel,
      long fencingToken,
      String acquiredAt,
      String expiresAt,
      BigDecimal secondsLeft,
      String state) {

    static Lease of(LeaseStatus s) {
      return new Lease(
          s.fenceName(),
          s.holderLabel(),
          s.fencingToken(),
          s.acquiredAt() == null ? null : s.acquiredAt().toString(),
          s.expiresAt() == null ? null : s.expiresAt().toString(),
          s.secondsLeft(),
          s.state());
    }
  }
}
