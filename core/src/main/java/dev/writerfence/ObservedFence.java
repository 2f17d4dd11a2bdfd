package dev.writerfence;

import dev.writerfence.internal.weaving.FencedCall;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spi.LeaseStore;
import dev.writerfence.spi.Turn;
import dev.writerfence.store.advisory.AdvisoryLockStore;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.store.rpc.LeaseRpcStore;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Micrometer observations of one fence's acquires and holds: the only class of core that names
 * Micrometer, built only when the fence was given an {@link ObservationRegistry} ({@link
 * WriterFence.Builder#observationRegistry}). A fence without one never loads it: its flow tests a
 * {@code null} field and goes on as before, allocating nothing for observations.
 *
 * <p>The names are not those of the starter's meters ({@code writer.fence.acquire} is its timer of
 * granted acquires): Micrometer's meter handler makes a timer of each observation, and one name
 * with two sets of tag keys is refused by Prometheus.
 *
 * <ul>
 *   <li>{@code writer.fence.acquisition} runs from the start of an acquire to its outcome, the wait
 *       for the local turn and in the store's queue included, with a scope open on the calling
 *       thread (so the fence's own statements, if the application's JDBC is instrumented, are its
 *       children).
 *   <li>{@code writer.fence.holding} runs from the grant to the release or the loss; no scope is
 *       opened for it, because a hold may end on another thread (a lazy result, a lease closed
 *       elsewhere, a loss on the renewal thread).
 * </ul>
 *
 * <p>Low-cardinality keys are bounded: the fence name as the annotation writes it ({@code
 * corpus:{0}}; an API call's own name), the backend, the outcome, the hand-over mode.
 * High-cardinality keys carry what is per call: the holder label, the fencing token as {@code
 * timeline.counter}, the place in the queue. docs/observability.md lists them.
 *
 * <p>An observation handler that throws never fails a fenced call: it is logged at DEBUG and
 * ignored, as a listener's failure is.
 */
final class ObservedFence {
  private static final Logger LOG = LoggerFactory.getLogger(ObservedFence.class);

  /** The name of an acquire's observation. */
  static final String ACQUIRE = "writer.fence.acquisition";

  /** The name of a hold's observation. */
  static final String HOLD = "writer.fence.holding";

  static final String NAME = "writer.fence.name";
  static final String BACKEND = "writer.fence.backend";
  static final String OUTCOME = "writer.fence.outcome";
  static final String HAND_OVER = "writer.fence.hand-over";
  static final String HOLDER = "writer.fence.holder";
  static final String TOKEN = "writer.fence.token";
  static final String PLACE = "writer.fence.place";
  static final String WAITERS = "writer.fence.waiters";
  static final String TAKEN_BY = "writer.fence.taken-by";
  static final String LOST_REASON = "writer.fence.lost-reason";

  private final ObservationRegistry registry;
  private final String backend;

  /**
   * @param store the fence's store, or {@code null} when the fence makes its own over a data source
   *     (the lease backend)
   */
  ObservedFence(ObservationRegistry registry, LeaseStore store) {
    this.registry = registry;
    this.backend = store == null ? "lease" : backendOf(store);
  }

  /** The backend's name as {@code writer-fence.backend} spells it, for a store core ships. */
  private static String backendOf(LeaseStore store) {
    if (store instanceof PgLeaseStore) {
      return "lease";
    }
    if (store instanceof AdvisoryLockStore) {
      return "advisory";
    }
    if (store instanceof LeaseRpcStore) {
      return "lease-rpc";
    }
    return store.getClass().getSimpleName(); // one value per store class: still bounded
  }

  /**
   * @param listener the fence's own listener; {@code null} for none
   * @return a listener that ends holds' observations at their release or loss, then tells {@code
   *     listener}
   */
  FenceListener beside(FenceListener listener) {
    return new Listening(listener);
  }

  /** {@link FencedCallFlow#enter} observed: the acquire, then the hold it pushed. */
  FencedCall held(FencedCallFlow flow, FencedCalls.Call call) {
    Acquire watch = new Acquire(flow, call);
    FencedCall entered;
    try {
      entered = flow.enter(call, watch);
    } catch (RuntimeException | Error e) {
      watch.failed(e);
      throw e;
    }
    if (entered instanceof HeldLease held) {
      watch.acquired(held);
    } else { // the thread's hold was found again: no acquire (not seen: the flow checked first)
      watch.ended("joined", null);
    }
    return entered;
  }

  /** {@link FencedCallFlow#acquire} (the API's acquire and tryAcquire) observed. */
  Optional<HeldLease> acquired(
      FencedCallFlow flow, FencedCalls.Call call, BusyRetryPolicy policy, boolean busyThrows) {
    Acquire watch = new Acquire(flow, call);
    Optional<HeldLease> held;
    try {
      held = flow.acquire(call, policy, busyThrows, watch);
    } catch (RuntimeException | Error e) {
      watch.failed(e);
      throw e;
    }
    if (held.isPresent()) {
      watch.acquired(held.get());
    } else {
      watch.ended("skipped", null); // tryAcquire found it busy: the caller goes on without it
    }
    return held;
  }

  /** What an observation handler threw: never the fenced call's failure. */
  private static void ignored(String what, RuntimeException e) {
    LOG.debug("writer-fence: an observation handler failed at {}; ignored", what, e);
  }

  /** One acquire under observation, from its start to its outcome. */
  final class Acquire {
    private final Observation observation;
    private final Observation.Scope scope;
    private final boolean skipsOnBusy;
    private int place; // the queue's first answer; 0: it did not wait in the queue

    Acquire(FencedCallFlow flow, FencedCalls.Call call) {
      FencedCalls.Site site = call.site();
      this.skipsOnBusy = site != null && site.skipsOnBusy();
      String label =
          call.holderLabel() != null ? call.holderLabel() : flow.runtime().defaultHolderLabel();
      Observation o = Observation.NOOP;
      Observation.Scope s = null;
      try {
        o =
            Observation.createNotStarted(ACQUIRE, registry)
                .contextualName("writer-fence acquire")
                .lowCardinalityKeyValue(NAME, site != null ? site.nameTemplate() : call.fenceName())
                .lowCardinalityKeyValue(BACKEND, backend)
                .lowCardinalityKeyValue(HAND_OVER, flow.runtime().queueWakeUp())
                .highCardinalityKeyValue(HOLDER, label != null ? label : "")
                .start();
        s = o.openScope();
      } catch (RuntimeException e) {
        ignored("the start of an acquire", e);
      }
      this.observation = o;
      this.scope = s;
    }

    /** The queue's first answer to this acquire: the place its wait starts at. */
    void queued(Turn answer) {
      place = answer.place();
      try {
        observation
            .highCardinalityKeyValue(PLACE, Integer.toString(answer.place()))
            .highCardinalityKeyValue(WAITERS, Integer.toString(answer.waiters()))
            .event(Observation.Event.of("writer.fence.queued", "queued at place " + place));
      } catch (RuntimeException e) {
        ignored("a queued answer", e);
      }
    }

    /** Granted: the acquire ends, and the hold's observation starts, beside it. */
    void acquired(HeldLease held) {
      try {
        long token = held.fencingToken();
        if (token > 0) {
          observation.highCardinalityKeyValue(TOKEN, FencingTokens.describe(token));
        }
      } catch (RuntimeException e) {
        ignored("an acquired lease", e);
      }
      ended("acquired", null);
      held.observation = new Hold(held, observation);
    }

    /** The acquire threw: busy (or skipped), unavailable, interrupted, or refused. */
    void failed(Throwable e) {
      if (e instanceof WriterFenceBusyException busy) {
        if (place == 0 && busy.place() > 0) {
          try {
            observation.highCardinalityKeyValue(PLACE, Integer.toString(busy.place()));
          } catch (RuntimeException r) {
            ignored("a busy answer", r);
          }
        }
        ended(skipsOnBusy ? "skipped" : "busy", null);
      } else if (e instanceof WriterFenceUnavailableException) {
        ended("unavailable", e);
      } else if (e instanceof WriterFenceInterruptedException) {
        ended("interrupted", e);
      } else {
        ended("failed", e);
      }
    }

    void ended(String outcome, Throwable error) {
      try {
        observation.lowCardinalityKeyValue(OUTCOME, outcome);
        if (error != null) {
          observation.error(error);
        }
        if (scope != null) {
          scope.close();
        }
        observation.stop();
      } catch (RuntimeException e) {
        ignored("the end of an acquire", e);
      }
    }
  }

  /** One hold under observation: ended once, by its release or its loss, whichever is first. */
  final class Hold {
    private final Observation observation;
    private final AtomicBoolean ended = new AtomicBoolean();

    Hold(HeldLease held, Observation acquire) {
      Observation o = Observation.NOOP;
      try {
        o = Observation.createNotStarted(HOLD, registry).contextualName("writer-fence hold");
        for (var key : acquire.getContext().getLowCardinalityKeyValues()) {
          if (!OUTCOME.equals(key.getKey()) && !HAND_OVER.equals(key.getKey())) {
            o.lowCardinalityKeyValue(key);
          }
        }
        long token = held.fencingToken();
        o.highCardinalityKeyValue(HOLDER, held.holderLabel() != null ? held.holderLabel() : "")
            .highCardinalityKeyValue(TOKEN, token > 0 ? FencingTokens.describe(token) : "");
        if (held.entry.takenBy() != null) {
          o.highCardinalityKeyValue(TAKEN_BY, held.entry.takenBy());
        }
        o.start();
      } catch (RuntimeException e) {
        ignored("the start of a hold", e);
      }
      this.observation = o;
    }

    /** Released: freed, or found taken over or free (its time had run out). */
    void released(boolean freed) {
      end(freed ? "released" : "expired", null);
    }

    void lost(FenceLease lease, String reason) {
      try {
        observation.highCardinalityKeyValue(LOST_REASON, reason);
      } catch (RuntimeException e) {
        ignored("a loss", e);
      }
      end("lost", new FenceLostException(lease, reason));
    }

    private void end(String outcome, Throwable error) {
      if (!ended.compareAndSet(false, true)) {
        return; // a lost lease is released too: its hold ended at the loss
      }
      try {
        observation.lowCardinalityKeyValue(OUTCOME, outcome);
        if (error != null) {
          observation.error(error);
        }
        observation.stop();
      } catch (RuntimeException e) {
        ignored("the end of a hold", e);
      }
    }
  }

  /** The fence's listener as seen by the fence: holds' observations end first, then it is told. */
  private static final class Listening implements FenceListener {
    private final FenceListener listener; // null: none

    Listening(FenceListener listener) {
      this.listener = listener;
    }

    @Override
    public void acquired(FenceLease lease, int attempts, Duration waited) {
      if (listener != null) {
        listener.acquired(lease, attempts, waited);
      }
    }

    @Override
    public void busyAttempt(FenceRequest request, int attempt) {
      if (listener != null) {
        listener.busyAttempt(request, attempt);
      }
    }

    @Override
    public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
      if (listener != null) {
        listener.busy(request, attempts, holder);
      }
    }

    @Override
    public void unavailable(FenceRequest request, WriterFenceUnavailableException failure) {
      if (listener != null) {
        listener.unavailable(request, failure);
      }
    }

    @Override
    public void released(FenceLease lease, boolean freed) {
      Hold hold = hold(lease);
      if (hold != null) {
        hold.released(freed);
      }
      if (listener != null) {
        listener.released(lease, freed);
      }
    }

    @Override
    public void lost(FenceLease lease, String reason) {
      Hold hold = hold(lease);
      if (hold != null) {
        hold.lost(lease, reason);
      }
      if (listener != null) {
        listener.lost(lease, reason);
      }
    }

    private static Hold hold(FenceLease lease) {
      return lease.state() instanceof HeldLease held ? held.observation : null;
    }
  }
}
