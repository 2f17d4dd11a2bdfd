package dev.writerfence.spring.metrics;

import dev.writerfence.QueuedWaiter;
import dev.writerfence.spi.LeaseStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gauge {@value #WAITERS}, tagged {@code fence}: how many writers wait in the fence name's
 * queue (live tickets of every process, in the {@code queue_status} view; lapsed ones not counted).
 *
 * <p>Its cost is bounded and kept off the fenced path: a fenced call never reads the queue for it.
 * The gauge reads its fence's queue (one statement) only when it is read itself, by a scrape or
 * {@code /actuator/metrics}, and at most once per refresh interval ({@value
 * #DEFAULT_REFRESH_SECONDS} s by default): a read within the interval answers the last count. When
 * the database cannot answer, it reads {@code NaN} until the next refresh. A backend without a
 * queue (the advisory lock) reads 0.
 */
public final class FenceQueueGauges {
  /** Gauge of live tickets in a fence name's queue. */
  public static final String WAITERS = "writer.fence.queue.waiters";

  /** Seconds between two reads of one fence's queue, at most, by default. */
  public static final long DEFAULT_REFRESH_SECONDS = 5;

  private static final Logger LOG = LoggerFactory.getLogger(FenceQueueGauges.class);

  private final Supplier<MeterRegistry> registry;
  private final Supplier<LeaseStore> store;
  private final long refreshNanos;
  private final LongSupplier nanoTime;
  private final ConcurrentMap<String, QueueLength> lengths = new ConcurrentHashMap<>();

  /**
   * Reads each queue at most every {@value #DEFAULT_REFRESH_SECONDS} seconds.
   *
   * @param registry supplies the registry; {@code null} from it means no metrics
   * @param store supplies the fence's store, asked when a gauge is read; {@code null} from it reads
   *     {@code NaN}
   */
  public FenceQueueGauges(Supplier<MeterRegistry> registry, Supplier<LeaseStore> store) {
    this(registry, store, Duration.ofSeconds(DEFAULT_REFRESH_SECONDS), System::nanoTime);
  }

  /**
   * @param registry supplies the registry; {@code null} from it means no metrics
   * @param store supplies the fence's store, asked when a gauge is read; {@code null} from it reads
   *     {@code NaN}
   * @param refresh the least time between two reads of one fence's queue; positive
   * @param nanoTime the monotonic clock the refresh is counted on, in nanoseconds
   * @throws IllegalArgumentException when {@code refresh} is not positive
   */
  public FenceQueueGauges(
      Supplier<MeterRegistry> registry,
      Supplier<LeaseStore> store,
      Duration refresh,
      LongSupplier nanoTime) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.store = Objects.requireNonNull(store, "store");
    if (refresh == null || refresh.isNegative() || refresh.isZero()) {
      throw new IllegalArgumentException(
          "writer-fence: queue gauge refresh " + refresh + " is not allowed: a positive duration");
    }
    this.refreshNanos = refresh.toNanos();
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Registers the fence name's gauge (once; later calls do nothing). Reads nothing.
   *
   * @param fenceName the fence name
   */
  public void register(String fenceName) {
    if (lengths.containsKey(fenceName)) {
      return;
    }
    MeterRegistry r = registry.get();
    if (r == null) {
      return;
    }
    lengths.computeIfAbsent(
        fenceName,
        name -> {
          QueueLength length = new QueueLength(name);
          Gauge.builder(WAITERS, length, QueueLength::value)
              .description(
                  "writer-fence: writers waiting in the fence's queue, of every process (read at"
                      + " most every few seconds)")
              .tag("fence", name)
              .register(r);
          return length;
        });
  }

  /** One fence's count, read from the store at most once per refresh interval. */
  private final class QueueLength {
    private final String fenceName;
    private boolean read;
    private long readAt;
    private double value = Double.NaN;

    QueueLength(String fenceName) {
      this.fenceName = fenceName;
    }

    synchronized double value() {
      long now = nanoTime.getAsLong();
      if (!read || now - readAt >= refreshNanos) {
        read = true;
        readAt = now;
        value = count();
      }
      return value;
    }

    private double count() {
      LeaseStore s = store.get();
      if (s == null) {
        return Double.NaN;
      }
      try {
        return s.queue(fenceName).stream().filter(QueuedWaiter::isWaiting).count();
      } catch (RuntimeException e) {
        LOG.debug("writer-fence: could not read the queue of fence '{}'", fenceName, e);
        return Double.NaN;
      }
    }
  }
}
