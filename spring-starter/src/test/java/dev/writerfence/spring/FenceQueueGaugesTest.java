package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.writerfence.QueuedWaiter;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spring.metrics.FenceQueueGauges;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.RecordingLeaseStore;
import dev.writerfence.testing.SwitchableDataSource;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The queue gauge counts the live tickets of a real queue, and reads the database at most once per
 * refresh interval however often it is read (the interval counted on a clock the test moves).
 */
class FenceQueueGaugesTest {
  private static final Duration TTL = Duration.ofSeconds(60);
  private static final Duration REFRESH = Duration.ofSeconds(5);

  private final SwitchableDataSource database =
      new SwitchableDataSource(EmbeddedDatabase.get().dataSource());
  private final PgLeaseStore real =
      new PgLeaseStore(database, FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(5));
  private final RecordingLeaseStore store = new RecordingLeaseStore(real);
  private final MeterRegistry meters = new SimpleMeterRegistry();
  private final AtomicLong clock = new AtomicLong(1_000);
  private final FenceQueueGauges gauges =
      new FenceQueueGauges(() -> meters, () -> store, REFRESH, clock::get);
  private final String name = FenceNames.random("queue-gauge");
  private final List<Ticket> tickets = new ArrayList<>();
  private StoreLease held;

  @AfterEach
  void leaveAndRelease() {
    database.restore();
    tickets.forEach(t -> real.leaveQueue(name, t.waiterToken()));
    if (held != null) {
      held.release();
    }
  }

  @Test
  void theGaugeCountsLiveTicketsAndReadsTheQueueAtMostOncePerRefresh() {
    gauges.register(name);
    gauges.register(name);
    assertThat(store.queueReads()).as("registering reads nothing").isZero();
    held = real.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    for (int i = 0; i < 3; i++) {
      real.enqueue(ticket("waiter-" + i, Duration.ofSeconds(60)));
    }

    assertThat(value()).isEqualTo(3.0);
    assertThat(value()).isEqualTo(3.0);
    assertThat(store.queueReads()).isEqualTo(1);

    real.enqueue(ticket("waiter-3", Duration.ofSeconds(60)));
    clock.addAndGet(REFRESH.toNanos() - 1);
    assertThat(value()).as("within the interval: the last count").isEqualTo(3.0);
    assertThat(store.queueReads()).isEqualTo(1);

    clock.addAndGet(1);
    assertThat(value()).isEqualTo(4.0);
    assertThat(store.queueReads()).isEqualTo(2);
  }

  @Test
  void aLapsedTicketIsNotCounted() throws Exception {
    gauges.register(name);
    held = real.acquire(name, UUID.randomUUID(), "holder", TTL).orElseThrow();
    real.enqueue(ticket("live", Duration.ofSeconds(60)));
    real.enqueue(ticket("lapsing", Duration.ofSeconds(1)));
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> real.queue(name).stream().filter(QueuedWaiter::isWaiting).count() == 1);

    assertThat(real.queue(name)).hasSize(2);
    assertThat(value()).isEqualTo(1.0);
  }

  @Test
  void aStoreThatCannotAnswerReadsNotANumberUntilTheNextRefresh() {
    gauges.register(name);
    database.cutOff();
    assertThat(value()).isNaN();

    database.restore();
    clock.addAndGet(REFRESH.toNanos());
    assertThat(value()).isZero();
  }

  @Test
  void aSeriesRegisteredBeforeAnyCallHasItsQueueGaugeAndATimeToWinWithAPercentileHistogram() {
    Map<String, DistributionStatisticConfig> configured = new ConcurrentHashMap<>();
    meters
        .config()
        .meterFilter(
            new MeterFilter() {
              @Override
              public DistributionStatisticConfig configure(
                  Meter.Id id, DistributionStatisticConfig config) {
                configured.put(id.getName(), config);
                return config;
              }
            });
    MicrometerFenceListener listener = new MicrometerFenceListener(() -> meters, "app", gauges);

    listener.register(name, null);

    assertThat(meters.find(FenceQueueGauges.WAITERS).tag("fence", name).gauge()).isNotNull();
    assertThat(meters.find(MicrometerFenceListener.ACQUIRE).tags("fence", name, "holder", "app"))
        .extracting(search -> search.timer().count())
        .isEqualTo(0L);
    assertThat(configured.get(MicrometerFenceListener.ACQUIRE).isPercentileHistogram()).isTrue();
    assertThat(store.queueReads()).as("registering reads nothing").isZero();
  }

  @Test
  void aRefreshThatIsNotPositiveIsRefusedNamingIt() {
    assertThatThrownBy(
            () -> new FenceQueueGauges(() -> meters, () -> store, Duration.ZERO, clock::get))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT0S")
        .hasMessageContaining("positive");
  }

  private Ticket ticket(String label, Duration lapse) {
    Ticket t = new Ticket(name, UUID.randomUUID(), label, 0, lapse);
    tickets.add(t);
    return t;
  }

  private double value() {
    return meters.get(FenceQueueGauges.WAITERS).tag("fence", name).gauge().value();
  }
}
