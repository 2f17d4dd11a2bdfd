package dev.writerfence.spring.actuate;

import dev.writerfence.LeaseStatus;
import dev.writerfence.QueuedWaiter;
import dev.writerfence.WriterFence;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.spi.LeaseStore;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The read-only {@code writerfence} actuator endpoint: the fence rows as operators see them (the
 * {@code lease_status} view; never a holder token), each with its queue of waiters (the {@code
 * queue_status} view: live tickets in turn order, then lapsed ones not yet cleared; never a waiter
 * token). {@code GET /actuator/writerfence} lists every fence; {@code GET
 * /actuator/writerfence/{name}} one (404 when the name was never acquired). Each answer reads the
 * database: one statement for the rows and one per fence for its queue. Expose it with {@code
 * management.endpoints.web.exposure.include=health,writerfence}.
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
    LeaseStore store = FencedCalls.store(fence);
    return new Leases(
        store.statusAll().stream().map(s -> Lease.of(s, store.queue(s.fenceName()))).toList());
  }

  /**
   * @param fenceName the fence name
   * @return its row, or {@code null} (404) when it was never acquired
   */
  @ReadOperation
  public Lease lease(@Selector String fenceName) {
    return fence
        .status(fenceName)
        .map(s -> Lease.of(s, FencedCalls.store(fence).queue(s.fenceName())))
        .orElse(null);
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
   * @param waiters live tickets in the fence's queue (lapsed ones not counted); 0 for a backend
   *     without a queue
   * @param queue the fence's tickets: live ones in turn order, then lapsed ones not yet cleared
   */
  public record Lease(
      String fenceName,
      String holderLabel,
      long fencingToken,
      String acquiredAt,
      String expiresAt,
      BigDecimal secondsLeft,
      String state,
      int waiters,
      List<Waiter> queue) {

    static Lease of(LeaseStatus s, List<QueuedWaiter> queue) {
      List<Waiter> tickets = queue.stream().map(Waiter::of).toList();
      return new Lease(
          s.fenceName(),
          s.holderLabel(),
          s.fencingToken(),
          iso(s.acquiredAt()),
          iso(s.expiresAt()),
          s.secondsLeft(),
          s.state(),
          (int) queue.stream().filter(QueuedWaiter::isWaiting).count(),
          tickets);
    }
  }

  /**
   * One ticket of a fence's queue. Times are ISO-8601 on the database clock.
   *
   * @param place 1 for the head of the queue; {@code null} once the ticket lapsed
   * @param holderLabel the waiter's label, or {@code null}
   * @param priority -100 to 100, higher first (one level counts as one second of waiting)
   * @param waitingSince when the ticket was taken
   * @param refreshedAt the waiter's last poll
   * @param lapsesAt when the ticket lapses unless its waiter polls again (or lapsed)
   * @param reserved whether the released lease is kept for this waiter
   * @param state {@code waiting} or {@code lapsed}
   */
  public record Waiter(
      Integer place,
      String holderLabel,
      int priority,
      String waitingSince,
      String refreshedAt,
      String lapsesAt,
      boolean reserved,
      String state) {

    static Waiter of(QueuedWaiter w) {
      return new Waiter(
          w.isWaiting() ? w.place() : null,
          w.holderLabel(),
          w.priority(),
          iso(w.waitingSince()),
          iso(w.refreshedAt()),
          iso(w.lapsesAt()),
          w.reserved(),
          w.isWaiting() ? "waiting" : "lapsed");
    }
  }

  private static String iso(Instant t) {
    return t == null ? null : t.toString();
  }
}
