package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.FencingTokens;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.schema.FenceSchema;
import dev.writerfence.spi.StoreLease;
import dev.writerfence.spi.Ticket;
import dev.writerfence.spring.app.Writers;
import dev.writerfence.spring.metrics.FenceQueueGauges;
import dev.writerfence.spring.metrics.FenceWakeUpGauge;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import dev.writerfence.store.lease.PgLeaseStore;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import dev.writerfence.testing.OtherWriter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Metrics after busy and acquired calls; the actuator endpoint's JSON; the health contributor. */
class MetricsAndEndpointTest extends FencedAppTestBase {
  @Autowired Writers writers;
  @Autowired MeterRegistry meters;
  @Autowired WriterFence appFence;
  @LocalServerPort int port;

  private static final Duration TTL = Duration.ofSeconds(60);
  private static final Duration LAPSE = Duration.ofSeconds(60);

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void metricsCountBusyRetriesAndAcquiresTaggedByFenceAndHolder() {
    String name = FenceNames.random("metrics");
    WriterFence other = WriterFence.builder(EmbeddedDatabase.get().dataSource()).build();
    FenceLease held =
        OtherWriter.tryAcquire(
                other,
                FenceRequest.builder(name)
                    .holderLabel("other-writer")
                    .ttl(Duration.ofSeconds(30))
                    .build())
            .orElseThrow();

    assertThatThrownBy(() -> writers.runFenced(name, () -> {}))
        .isInstanceOf(WriterFenceBusyException.class);
    assertThat(count(MicrometerFenceListener.BUSY, name)).isEqualTo(1.0);
    // Polls of the queue within the annotation's budget: at least one after the first attempt.
    double retries = count(MicrometerFenceListener.RETRIES, name);
    assertThat(retries).isGreaterThanOrEqualTo(1.0);
    // The series' other meters exist at zero from its first event on, the acquire timer too.
    assertThat(meters.find(MicrometerFenceListener.ACQUIRE).tag("fence", name).timer().count())
        .isZero();
    assertThat(count(MicrometerFenceListener.LOST, name)).isZero();

    other.release(held);
    AtomicReference<Double> heldInside = new AtomicReference<>();
    writers.runFenced(name, () -> heldInside.set(gauge(name)));

    assertThat(heldInside.get()).isEqualTo(1.0);
    assertThat(gauge(name)).isZero();
    assertThat(
            meters
                .get(MicrometerFenceListener.ACQUIRE)
                .tags("fence", name, "holder", "metrics")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(count(MicrometerFenceListener.BUSY, name)).isEqualTo(1.0);
    assertThat(count(MicrometerFenceListener.RETRIES, name)).isEqualTo(retries);
    assertThat(count(MicrometerFenceListener.RELEASE_MISMATCH, name)).isZero();
  }

  @Test
  void endpointListsLeasesFromTheStatusViewAndMetricsAreServed() throws Exception {
    String name = FenceNames.random("endpoint");
    writers.write(name); // acquired and released: a free row with fencing token 1
    AtomicReference<String> whileHeld = new AtomicReference<>();
    writers.runFenced(name, () -> whileHeld.set(get("/actuator/writerfence/" + name, 200)));

    String one = whileHeld.get();
    assertThat(JsonPath.<String>read(one, "$.fenceName")).isEqualTo(name);
    assertThat(JsonPath.<String>read(one, "$.holderLabel"))
        .isEqualTo("metrics@" + HolderLabel.instance());
    assertThat(JsonPath.<Number>read(one, "$.fencingToken").longValue())
        .as("the second grant of the name")
        .isEqualTo(FencingTokens.first(1) + 1);
    assertThat(JsonPath.<String>read(one, "$.state")).isEqualTo("held");
    assertThat(JsonPath.<Double>read(one, "$.secondsLeft")).isBetween(1.0, 30.0);
    Map<String, Object> fields = JsonPath.read(one, "$");
    assertThat(fields.keySet())
        .containsExactlyInAnyOrder(
            "fenceName",
            "holderLabel",
            "fencingToken",
            "acquiredAt",
            "expiresAt",
            "secondsLeft",
            "state",
            "waiters",
            "queue");
    assertThat(JsonPath.<Integer>read(one, "$.waiters")).isZero();
    assertThat(JsonPath.<List<Object>>read(one, "$.queue")).isEmpty();

    String all = get("/actuator/writerfence", 200);
    List<Map<String, Object>> rows =
        JsonPath.read(all, "$.leases[?(@.fenceName == '" + name + "')]");
    assertThat(rows)
        .singleElement()
        .satisfies(
            row -> {
              assertThat(row)
                  .containsEntry("state", "free")
                  .containsEntry("fencingToken", FencingTokens.first(1) + 1);
              assertThat((String) row.get("acquiredAt")).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
            });
    get("/actuator/writerfence/" + FenceNames.random("never-acquired"), 404);

    String metric = get("/actuator/metrics/" + MicrometerFenceListener.ACQUIRE, 200);
    assertThat(JsonPath.<List<String>>read(metric, "$.availableTags[*].tag"))
        .contains("fence", "holder");
  }

  @Test
  void theWakeUpGaugeReadsNotifiedOnceAQueuedWaitProvedTheNotifications() {
    String name = FenceNames.random("wake-up");
    WriterFence other = WriterFence.builder(EmbeddedDatabase.get().dataSource()).build();
    FenceLease held =
        OtherWriter.tryAcquire(
                other, FenceRequest.builder(name).holderLabel("other-writer").ttl(TTL).build())
            .orElseThrow();
    try {
      // A busy call waits at the front of the queue: that starts the listener and its probe.
      FenceRequest waiting =
          FenceRequest.builder(name)
              .retryPolicy(BusyRetryPolicy.defaults().withMaxWait(Duration.ofSeconds(2)))
              .build();
      assertThatThrownBy(() -> appFence.run(waiting, () -> {}))
          .isInstanceOf(WriterFenceBusyException.class);

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> meters.get(FenceWakeUpGauge.NOTIFIED).gauge().value() == 1.0);
    } finally {
      other.release(held);
      other.close();
    }
  }

  @Test
  void endpointAndQueueGaugeShowTheWaitersAndTheTimerRecordsTheGrant() {
    String name = FenceNames.random("queue");
    writers.write(name); // the series and the queue gauge are registered at the first call
    PgLeaseStore store =
        new PgLeaseStore(
            EmbeddedDatabase.get().dataSource(), FenceSchema.DEFAULT_SCHEMA, Duration.ofSeconds(5));
    StoreLease held = store.acquire(name, UUID.randomUUID(), "other-writer", TTL).orElseThrow();
    List<Ticket> tickets =
        List.of(
            new Ticket(name, UUID.randomUUID(), "first", 0, LAPSE),
            new Ticket(name, UUID.randomUUID(), "second", 0, LAPSE),
            new Ticket(name, UUID.randomUUID(), "urgent", 30, LAPSE));
    try {
      tickets.forEach(store::enqueue);

      assertThat(meters.get(FenceQueueGauges.WAITERS).tag("fence", name).gauge().value())
          .isEqualTo(3.0);
      String metric =
          get("/actuator/metrics/" + FenceQueueGauges.WAITERS + "?tag=fence:" + name, 200);
      assertThat(JsonPath.<List<Double>>read(metric, "$.measurements[*].value"))
          .containsExactly(3.0);

      String one = get("/actuator/writerfence/" + name, 200);
      assertThat(JsonPath.<Integer>read(one, "$.waiters")).isEqualTo(3);
      assertThat(JsonPath.<List<String>>read(one, "$.queue[*].holderLabel"))
          .containsExactly("urgent", "first", "second");
      assertThat(JsonPath.<List<Integer>>read(one, "$.queue[*].place")).containsExactly(1, 2, 3);
      assertThat(JsonPath.<List<Integer>>read(one, "$.queue[*].priority"))
          .containsExactly(30, 0, 0);
      assertThat(JsonPath.<List<String>>read(one, "$.queue[*].state")).containsOnly("waiting");
      assertThat(JsonPath.<List<Boolean>>read(one, "$.queue[*].reserved")).containsOnly(false);
      assertThat(JsonPath.<String>read(one, "$.queue[0].waitingSince"))
          .matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
      String all = get("/actuator/writerfence", 200);
      assertThat(
              JsonPath.<List<Integer>>read(
                  all, "$.leases[?(@.fenceName == '" + name + "')].waiters"))
          .containsExactly(3);

      assertThat(held.release()).isTrue();
      String released = get("/actuator/writerfence/" + name, 200);
      assertThat(JsonPath.<String>read(released, "$.state")).isEqualTo("free");
      assertThat(JsonPath.<List<Boolean>>read(released, "$.queue[*].reserved"))
          .as("the released lease is kept for the head")
          .containsExactly(true, false, false);
    } finally {
      tickets.forEach(t -> store.leaveQueue(name, t.waiterToken()));
      held.release();
    }

    writers.runFenced(name, () -> {});
    Timer timeToWin =
        meters
            .get(MicrometerFenceListener.ACQUIRE)
            .tags("fence", name, "holder", "metrics")
            .timer();
    assertThat(timeToWin.count()).as("the grant after the queue emptied").isEqualTo(1);
    assertThat(timeToWin.totalTime(TimeUnit.NANOSECONDS)).isPositive();
  }

  @Test
  void healthIsUpWithSchemaAndVersion() throws Exception {
    String health = get("/actuator/health/writerFence", 200);
    assertThat(JsonPath.<String>read(health, "$.status")).isEqualTo("UP");
    assertThat(JsonPath.<String>read(health, "$.details.schema")).isEqualTo("writer_fence");
    assertThat(JsonPath.<Integer>read(health, "$.details.version")).isEqualTo(FenceSchema.VERSION);
  }

  private double count(String meter, String fence) {
    var counter = meters.find(meter).tag("fence", fence).counter();
    return counter == null ? 0.0 : counter.count();
  }

  private double gauge(String fence) {
    return meters.get(MicrometerFenceListener.HELD).tag("fence", fence).gauge().value();
  }

  private String get(String path, int expectedStatus) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(expectedStatus);
      return response.body();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
