package dev.writerfence.spring.metrics;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceListener;
import dev.writerfence.FenceRequest;
import dev.writerfence.LeaseStatus;
import dev.writerfence.WriterFenceUnavailableException;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;

/**
 * Micrometer meters for every fence event, tagged {@code fence} and {@code holder}, each from a
 * bounded set ({@link FenceTags}): the fence name's template ({@code corpus:{0}}) or the name
 * itself, and the holder label as configured, without its {@code host:pid} part ({@code none} when
 * none was given):
 *
 * <table>
 *   <caption>meters</caption>
 *   <tr><th>name</th><th>type</th><th>counts</th></tr>
 *   <tr><td>{@value #ACQUIRE}</td><td>timer, with a percentile histogram</td><td>acquired
 *       leases; the time to win: from the first attempt to the lease, every wait between
 *       attempts included (the {@code waited} of {@link FenceListener#acquired})</td></tr>
 *   <tr><td>{@value #BUSY}</td><td>counter</td><td>calls refused busy after their last
 *       attempt</td></tr>
 *   <tr><td>{@value #RETRIES}</td><td>counter</td><td>busy attempts that were tried again</td></tr>
 *   <tr><td>{@value #UNAVAILABLE}</td><td>counter</td><td>calls refused because the database could
 *       not confirm the lease</td></tr>
 *   <tr><td>{@value #RELEASE_MISMATCH}</td><td>counter</td><td>releases that found another holder
 *       or a free row (a lost lease's release among them)</td></tr>
 *   <tr><td>{@value #LOST}</td><td>counter</td><td>held leases lost ({@link FenceListener#lost}): a
 *       renewal found them expired or taken over, or none confirmed them within their TTL (the
 *       database unreachable, the process paused)</td></tr>
 *   <tr><td>{@value #HELD}</td><td>gauge</td><td>leases held now</td></tr>
 *   <tr><td>{@value FenceQueueGauges#WAITERS}</td><td>gauge, tagged {@code fence} only</td>
 *       <td>writers of every process waiting in the fence's queue ({@link FenceQueueGauges}), when
 *       the listener was made with one; only for a name tagged as itself (not a template's)</td>
 *       </tr>
 * </table>
 *
 * Every meter of a series ({@code fence}, {@code holder}) is registered together, at zero, the
 * first time the series is seen: so {@value #ACQUIRE} exists on an instance whose calls were all
 * busy. {@link #register} registers a series before any call (the starter does so at start-up for
 * each fence name or template of a {@code @WriterFenced} method). Fence names made from arguments
 * count in their template's series once the template is registered; names that match no template
 * are bounded by {@link FenceTags}.
 */
public final class MicrometerFenceListener implements FenceListener {
  /** Timer of acquired leases. */
  public static final String ACQUIRE = "writer.fence.acquire";

  /** Counter of calls refused busy. */
  public static final String BUSY = "writer.fence.busy";

  /** Counter of busy attempts tried again. */
  public static final String RETRIES = "writer.fence.retries";

  /** Counter of calls refused unavailable. */
  public static final String UNAVAILABLE = "writer.fence.unavailable";

  /** Counter of releases that found another holder or a free row. */
  public static final String RELEASE_MISMATCH = "writer.fence.release.mismatch";

  /** Counter of held leases lost. */
  public static final String LOST = "writer.fence.lost";

  /** Gauge of leases held now. */
  public static final String HELD = "writer.fence.leases.held";

  private static final String BUSY_TEXT = "Fenced calls refused busy after their last attempt";
  private static final String RETRIES_TEXT = "Busy acquire attempts that were tried again";
  private static final String UNAVAILABLE_TEXT =
      "Fenced calls refused: the database could not confirm the lease";
  private static final String RELEASE_MISMATCH_TEXT =
      "Releases that found another holder or a free row";
  private static final String LOST_TEXT =
      "Held leases lost: a renewal found them expired or taken over, or none confirmed them within"
          + " their TTL";

  private final Supplier<MeterRegistry> registry;
  private final String defaultHolderLabel;
  private final FenceQueueGauges queue; // null: no queue gauge
  private final FenceTags tags;
  private final ConcurrentMap<Tags, Set<FenceLease>> held = new ConcurrentHashMap<>();

  /**
   * Meters without the queue gauge.
   *
   * @param registry supplies the registry on first use; {@code null} from it means no metrics
   * @param defaultHolderLabel the fence's default holder label, the tag of requests that set none
   *     (a lease always carries its label), or {@code null}
   */
  public MicrometerFenceListener(Supplier<MeterRegistry> registry, String defaultHolderLabel) {
    this(registry, defaultHolderLabel, null);
  }

  /**
   * @param registry supplies the registry on first use; {@code null} from it means no metrics
   * @param defaultHolderLabel the fence's default holder label, the tag of requests that set none
   *     (a lease always carries its label), or {@code null}
   * @param queue registers the fence name's queue gauge with each new series, or {@code null} for
   *     none
   */
  public MicrometerFenceListener(
      Supplier<MeterRegistry> registry, String defaultHolderLabel, FenceQueueGauges queue) {
    this(registry, defaultHolderLabel, queue, new FenceTags());
  }

  /**
   * @param registry supplies the registry on first use; {@code null} from it means no metrics
   * @param defaultHolderLabel the fence's default holder label, the tag of requests that set none
   *     (a lease always carries its label), or {@code null}
   * @param queue registers the fence name's queue gauge with each new series, or {@code null} for
   *     none
   * @param tags makes the series' tags; never {@code null}
   */
  public MicrometerFenceListener(
      Supplier<MeterRegistry> registry,
      String defaultHolderLabel,
      FenceQueueGauges queue,
      FenceTags tags) {
    this.registry = registry;
    this.defaultHolderLabel = defaultHolderLabel;
    this.queue = queue;
    this.tags = Objects.requireNonNull(tags, "tags");
  }

  /**
   * Registers a fence name template, so that the names it makes count in one series, and every
   * meter of that series at zero.
   *
   * @param template the template, for example {@code corpus:{0}}
   * @param holderLabel the holder label, or {@code null} for the fence's default
   */
  public void register(FenceNameTemplate template, String holderLabel) {
    tags.template(template);
    register(template.toString(), holderLabel);
  }

  /**
   * Registers every meter of one series at zero, before any call counts in it.
   *
   * @param fenceName the fence name
   * @param holderLabel the holder label, or {@code null} for the fence's default
   */
  public void register(String fenceName, String holderLabel) {
    MeterRegistry r = registry.get();
    if (r != null) {
      series(r, fenceName, holderLabel != null ? holderLabel : defaultHolderLabel);
    }
  }

  @Override
  public void acquired(FenceLease lease, int attempts, Duration waited) {
    MeterRegistry r = registry.get();
    if (r == null) {
      return;
    }
    Tags tags = series(r, lease.fenceName(), lease.holderLabel());
    timer(r, tags).record(waited);
    retried(r, tags, attempts);
    heldSet(r, tags).add(lease);
  }

  @Override
  public void busy(FenceRequest request, int attempts, Optional<LeaseStatus> holder) {
    MeterRegistry r = registry.get();
    if (r == null) {
      return;
    }
    Tags tags = series(r, request.fenceName(), request.holderLabel().orElse(defaultHolderLabel));
    counter(r, BUSY, BUSY_TEXT, tags).increment();
    retried(r, tags, attempts);
  }

  @Override
  public void unavailable(FenceRequest request, WriterFenceUnavailableException failure) {
    MeterRegistry r = registry.get();
    if (r == null) {
      return;
    }
    Tags tags = series(r, request.fenceName(), request.holderLabel().orElse(defaultHolderLabel));
    counter(r, UNAVAILABLE, UNAVAILABLE_TEXT, tags).increment();
  }

  @Override
  public void released(FenceLease lease, boolean freed) {
    MeterRegistry r = registry.get();
    if (r == null) {
      return;
    }
    Tags tags = forget(lease);
    if (!freed) {
      counter(r, RELEASE_MISMATCH, RELEASE_MISMATCH_TEXT, tags).increment();
    }
  }

  @Override
  public void lost(FenceLease lease, String reason) {
    MeterRegistry r = registry.get();
    if (r == null) {
      return;
    }
    Tags tags = forget(lease);
    counter(r, LOST, LOST_TEXT, tags).increment();
  }

  /**
   * Registers every meter of the series of {@code fenceName} and {@code holderLabel}, and the fence
   * name's queue gauge (once; Micrometer keeps them); returns the series' tags.
   */
  private Tags series(MeterRegistry r, String fenceName, String holderLabel) {
    Tags series = tags.of(fenceName, holderLabel);
    if (held.containsKey(series)) {
      return series;
    }
    if (queue != null && tags.isOwnName(fenceName)) {
      queue.register(fenceName);
    }
    timer(r, series);
    counter(r, BUSY, BUSY_TEXT, series);
    counter(r, RETRIES, RETRIES_TEXT, series);
    counter(r, UNAVAILABLE, UNAVAILABLE_TEXT, series);
    counter(r, RELEASE_MISMATCH, RELEASE_MISMATCH_TEXT, series);
    counter(r, LOST, LOST_TEXT, series);
    heldSet(r, series);
    return series;
  }

  private static Timer timer(MeterRegistry r, Tags tags) {
    return Timer.builder(ACQUIRE)
        .description("Acquired writer-fence leases: time from the first attempt to the lease")
        .tags(tags)
        .publishPercentileHistogram()
        .register(r);
  }

  private static void retried(MeterRegistry r, Tags tags, int attempts) {
    Counter retries = counter(r, RETRIES, RETRIES_TEXT, tags);
    if (attempts > 1) {
      retries.increment(attempts - 1);
    }
  }

  /** Takes a released or lost lease off the held gauge; returns its tags. */
  private Tags forget(FenceLease lease) {
    Tags series = tags.of(lease.fenceName(), lease.holderLabel());
    Set<FenceLease> leases = held.get(series);
    if (leases != null) {
      leases.remove(lease);
    }
    return series;
  }

  private Set<FenceLease> heldSet(MeterRegistry r, Tags tags) {
    return held.computeIfAbsent(
        tags,
        t -> {
          Set<FenceLease> leases = ConcurrentHashMap.newKeySet();
          Gauge.builder(HELD, leases, MicrometerFenceListener::countValid)
              .description("writer-fence leases held now")
              .tags(t)
              .register(r);
          return leases;
        });
  }

  /** A lease whose release failed is marked released too: it is held no more by this process. */
  private static double countValid(Set<FenceLease> leases) {
    leases.removeIf(lease -> !lease.isValid());
    return leases.size();
  }

  private static Counter counter(MeterRegistry r, String name, String description, Tags tags) {
    return Counter.builder(name).description(description).tags(tags).register(r);
  }
}
