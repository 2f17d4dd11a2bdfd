package dev.writerfence;

import java.math.BigDecimal;
import java.time.Instant;

/**
 * One row of the {@code lease_status} view: what operators see of a fence. It never shows the
 * holder token.
 *
 * @param fenceName the fence name
 * @param holderLabel the current or last holder's label, or {@code null}
 * @param fencingToken the last fencing token issued
 * @param acquiredAt when the current or last lease was granted (database clock)
 * @param expiresAt when it expires or expired (database clock); for a released lease, the release
 * @param secondsLeft seconds until expiry, 0 when not held, millisecond precision
 * @param state {@code held}, {@code expired} or {@code free}
 */
public record LeaseStatus(
    String fenceName,
    String holderLabel,
    long fencingToken,
    Instant acquiredAt,
    Instant expiresAt,
    BigDecimal secondsLeft,
    String state) {

  /**
   * @return {@code true} when a live holder has the fence
   */
  public boolean isHeld() {
    return "held".equals(state);
  }
}
