package dev.writerfence.spi;

import dev.writerfence.internal.FenceArguments;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;

/**
 * A writer's place in the queue of one fence name, as it asks a {@link LeaseStore} for its turn.
 * The store keeps the ticket while the writer's polls refresh it; a ticket not refreshed for {@link
 * #lapse()} lapses and no longer holds a place.
 *
 * @param fenceName the fence name; checked by {@link FenceArguments#fenceName}
 * @param waiterToken minted once per wait and kept for all its polls; the waiter's secret (whoever
 *     knows it can take the waiter's turn); never {@code null}
 * @param holderLabel shown in the queue's status, or {@code null}; checked by {@link
 *     FenceArguments#holderLabel}
 * @param priority from -100 to 100, higher first; one level is worth one second of waiting, so a
 *     ticket of priority {@code p} is served as if it had arrived {@code p} seconds earlier
 * @param lapse whole seconds from 1 to 60: how long the ticket lasts without a poll
 */
public record Ticket(
    String fenceName, UUID waiterToken, String holderLabel, int priority, Duration lapse) {
  /**
   * Checks every component.
   *
   * @throws IllegalArgumentException naming the value and the rule it breaks
   * @throws NullPointerException when the waiter token is {@code null}
   */
  public Ticket {
    FenceArguments.fenceName(fenceName);
    Objects.requireNonNull(waiterToken, "waiterToken");
    FenceArguments.holderLabel(holderLabel);
    FenceArguments.priority(priority);
    FenceArguments.lapseSeconds(lapse);
  }
}
