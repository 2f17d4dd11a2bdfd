package dev.writerfence.spring.boot;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Passes every fence event to several listeners in order. The auto-configured fence gets one over
 * every {@link FenceListener} bean (metrics and the application's own). An application that defines
 * its own {@code WriterFence} bean passes one to its builder to keep those (its leases are released
 * on shutdown either way):
 *
 * <pre>{@code
 * @Bean
 * WriterFence writerFence(DataSource dataSource, ObjectProvider<FenceListener> listeners) {
 *   return WriterFence.builder(dataSource)
 *       .listener(CompositeFenceListener.of(listeners.orderedStream().toList()))
 *       .build();
 * }
 * }</pre>
 *
 * <p>A listener that throws does not keep the others from their event: each call is made on its
 * own, and what one throws is collected and rethrown after all have run (the core logs and ignores
 * it, except a {@link VirtualMachineError}).
 */
public final class CompositeFenceListener implements FenceListener {
  private final List<FenceListener> listeners;

  private CompositeFenceListener(List<FenceListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  /**
   * @param listeners the listeners, called in this order
   * @return one listener passing events to all of them
   */
  public static FenceListener of(List<? extends FenceListener> listeners) {
    return new CompositeFenceListener(List.copyOf(listeners));
  }

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    each(l -> l.acquired(lease, attempts, waited));
  }

  @Override
  public void busyAttempt(FenceRequest request, int attempt) {
    each(l -> l.busyAttempt(request, attempt));
  }

  @Override
  public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
    each(l -> l.busy(request, attempts, holder));
  }

  @Override
  public void unavailable(FenceRequest request, WriterFenceUnavailableException failure) {
    each(l -> l.unavailable(request, failure));
  }

  @Override
  public void released(FenceLease lease, boolean freed) {
    each(l -> l.released(lease, freed));
  }

  @Override
  public void lost(FenceLease lease, String reason) {
    each(l -> l.lost(lease, reason));
  }

  private void each(java.util.function.Consumer<FenceListener> event) {
    RuntimeException failure = null;
    for (FenceListener listener : listeners) {
      try {
        event.accept(listener);
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "CompositeFenceListener" + listeners;
  }
}
