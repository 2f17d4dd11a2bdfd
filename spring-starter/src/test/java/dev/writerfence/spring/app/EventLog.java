package dev.writerfence.spring.app;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.testing.EmbeddedDatabase;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.transaction.TransactionExecution;
import org.springframework.transaction.TransactionExecutionListener;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * Records fence and transaction events in the order they happen, each with whether a transaction
 * was open on the thread and, at transaction begin, what other writers see of the fence row.
 */
public class EventLog implements FenceListener, TransactionExecutionListener {
  /** One event: kind, fence name (or transaction name), tx open on the thread, detail. */
  public record Event(String kind, String name, boolean inTransaction, String detail) {}

  private final List<Event> events = new CopyOnWriteArrayList<>();
  private volatile String watchedFence;

  public void watch(String fenceName) {
    watchedFence = fenceName;
    events.clear();
  }

  public List<Event> events() {
    return List.copyOf(events);
  }

  public void add(String kind, String name, String detail) {
    events.add(
        new Event(
            kind, name, TransactionSynchronizationManager.isActualTransactionActive(), detail));
  }

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    add("acquired", lease.fenceName(), String.valueOf(lease.fencingToken()));
  }

  @Override
  public void busyAttempt(FenceRequest request, int attempt) {
    add("busy-attempt", request.fenceName(), String.valueOf(attempt));
  }

  @Override
  public void busy(
      FenceRequest request, int attempts, java.util.Optional<dev.writerfence.LeaseStatus> holder) {
    add("busy", request.fenceName(), String.valueOf(attempts));
  }

  @Override
  public void released(FenceLease lease, boolean freed) {
    add("released", lease.fenceName(), String.valueOf(freed));
  }

  @Override
  public void beforeBegin(TransactionExecution transaction) {
    String fence = watchedFence;
    String seen =
        fence == null
            ? ""
            : EmbeddedDatabase.get()
                .queryValue(
                    String.class,
                    "SELECT coalesce(max(state || '/' || holder_label), 'none')"
                        + " FROM writer_fence.lease_status WHERE fence_name = ?",
                    fence);
    add("tx-begin", transaction.getTransactionName(), seen);
  }

  @Override
  public void afterCommit(TransactionExecution transaction, Throwable commitFailure) {
    add("tx-commit", transaction.getTransactionName(), String.valueOf(commitFailure));
  }

  @Override
  public void afterRollback(TransactionExecution transaction, Throwable rollbackFailure) {
    add("tx-rollback", transaction.getTransactionName(), String.valueOf(rollbackFailure));
  }
}
