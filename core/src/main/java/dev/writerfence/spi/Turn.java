package dev.writerfence.spi;

import java.util.Objects;
import java.util.Optional;

/**
 * What one poll of a queued writer ({@link LeaseStore#acquireInTurn}, {@link LeaseStore#enqueue})
 * answered.
 *
 * @param lease the lease when it was this ticket's turn and the lease was free; empty when busy
 *     (always from {@code enqueue})
 * @param place the ticket's place among the fence's live tickets, 1 for the head; 0 when the lease
 *     was granted, and 0 from a store that keeps no queue
 * @param waiters live tickets of the fence, the caller's own included while it still waits
 */
public record Turn(Optional<StoreLease> lease, int place, int waiters) {
  /** The answer of a store that keeps no queue and found the lease busy. */
  public static final Turn BUSY_UNQUEUED = new Turn(Optional.empty(), 0, 0);

  /**
   * @throws NullPointerException when {@code lease} is {@code null}
   */
  public Turn {
    Objects.requireNonNull(lease, "lease");
  }

  /**
   * @param lease the lease granted
   * @param waiters the tickets still waiting
   * @return a granted turn
   */
  public static Turn granted(StoreLease lease, int waiters) {
    return new Turn(Optional.of(lease), 0, waiters);
  }

  /**
   * @return whether the lease was granted
   */
  public boolean acquired() {
    return lease.isPresent();
  }
}
