package dev.writerfence;

import java.time.Instant;

/**
 * One row of the {@code queue_status} view: a waiter's ticket as operators see it. It never shows
 * the waiter token.
 *
 * @param fenceName the fence name
 * @param holderLabel the waiter's label, or {@code null}
 * @param priority -100 to 100, higher first
 * @param waitingSince when the ticket was taken (database clock)
 * @param refreshedAt the waiter's last poll (database clock)
 * @param lapsesAt when the ticket lapses unless refreshed (database clock)
 * @param place the ticket's turn among the fence's live tickets, 1 for the head; 0 for a lapsed
 *     ticket
 * @param reserved whether the released lease is being kept for this waiter
 */
public record QueuedWaiter(
    String fenceName,
    String holderLabel,
    int priority,
    Instant waitingSince,
    Instant refreshedAt,
    Instant lapsesAt,
    int place,
    boolean reserved) {
  /**
   * @return {@code true} while the ticket holds a place (it has not lapsed)
   */
  public boolean isWaiting() {
    return place > 0;
  }
}
