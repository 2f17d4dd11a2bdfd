package dev.writerfence.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.writerfence.FenceLease;
import dev.writerfence.FenceRequest;
import dev.writerfence.HolderLabel;
import dev.writerfence.WriterFence;
import dev.writerfence.WriterFenceBusyException;
import dev.writerfence.internal.weaving.FencedMethods.FenceNameTemplate;
import dev.writerfence.retry.BusyRetryPolicy;
import dev.writerfence.spring.metrics.FenceQueueGauges;
import dev.writerfence.spring.metrics.FenceTags;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import dev.writerfence.testing.EmbeddedDatabase;
import dev.writerfence.testing.FenceNames;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The starter's meters stay few however many instances hold and however many values a template is
 * given: many fences with labels of many instances ({@code upload@pod-7:1007}), fenced calls on
 * many names of one template, busy ones among them, on a real database; the meters are counted by
 * name in the registry.
 */
class BoundedMetricTagsTest {
  private static final int INSTANCES = 8;
  private static final int VALUES = 40;
  private static final int UNTEMPLATED_BOUND = 3;
  private static final Duration TTL = Duration.ofSeconds(30);

  private final DataSource ds = EmbeddedDatabase.get().dataSource();
  private final MeterRegistry meters = new SimpleMeterRegistry();
  private final FenceTags tags = new FenceTags(UNTEMPLATED_BOUND);
  private final List<WriterFence> fences = new ArrayList<>();

  @AfterEach
  void close() {
    fences.forEach(WriterFence::close);
  }

  @Test
  void manyInstancesAndTemplateValuesMakeABoundedNumberOfMeters() throws Exception {
    String prefix = FenceNames.random("corpus");
    FenceNameTemplate template = FenceNameTemplate.parse(prefix + ":{0}");
    FenceQueueGauges queue = new FenceQueueGauges(() -> meters, () -> null);
    MicrometerFenceListener listener =
        new MicrometerFenceListener(() -> meters, "upload@" + HolderLabel.instance(), queue, tags);
    listener.register(template, "upload");
    for (int i = 0; i < INSTANCES; i++) {
      // Each fence stands for one instance of the service: its label names its host and pid.
      fences.add(
          WriterFence.builder(ds)
              .defaultHolderLabel("upload@pod-" + i + ":" + (1000 + i))
              .retryPolicy(BusyRetryPolicy.noRetry())
              .listener(listener)
              .build());
    }

    for (int v = 0; v < VALUES; v++) {
      WriterFence fence = fences.get(v % INSTANCES);
      fence.run(FenceRequest.builder(prefix + ":" + v).ttl(TTL).build(), () -> {});
    }
    // A busy call on one value: another instance holds it (on another thread, which would
    // otherwise join the hold).
    String contended = prefix + ":contended";
    FenceLease held = fences.get(0).acquire(FenceRequest.builder(contended).ttl(TTL).build());
    try {
      CompletableFuture<Void> busy =
          CompletableFuture.runAsync(
              () -> fences.get(1).run(FenceRequest.builder(contended).ttl(TTL).build(), () -> {}));
      assertThatThrownBy(busy::join).hasCauseInstanceOf(WriterFenceBusyException.class);
    } finally {
      fences.get(0).release(held);
    }
    // Names made without a template: a few get their own tag, then they share one.
    for (int n = 0; n < UNTEMPLATED_BOUND + 5; n++) {
      fences.get(n % INSTANCES).run(FenceRequest.builder(prefix + "-plain-" + n).build(), () -> {});
    }

    Map<String, Long> perName =
        meters.getMeters().stream()
            .collect(
                Collectors.groupingBy(
                    m -> m.getId().getName(), TreeMap::new, Collectors.counting()));
    // One series per fence tag (the template, the bounded plain names, "other") and holder tag.
    long series = 1 + UNTEMPLATED_BOUND + 1;
    assertThat(perName)
        .as(
            "meters by name; acquire timers: %s",
            meters.find(MicrometerFenceListener.ACQUIRE).timers().stream()
                .map(Meter::getId)
                .toList())
        .containsEntry(MicrometerFenceListener.ACQUIRE, series)
        .containsEntry(MicrometerFenceListener.BUSY, series)
        .containsEntry(MicrometerFenceListener.RETRIES, series)
        .containsEntry(MicrometerFenceListener.UNAVAILABLE, series)
        .containsEntry(MicrometerFenceListener.RELEASE_MISMATCH, series)
        .containsEntry(MicrometerFenceListener.LOST, series)
        .containsEntry(MicrometerFenceListener.HELD, series)
        .containsEntry(FenceQueueGauges.WAITERS, (long) UNTEMPLATED_BOUND);

    assertThat(values("holder")).containsExactly("upload");
    assertThat(values("fence"))
        .contains(template.toString(), FenceTags.OTHER)
        .noneMatch(tag -> tag.startsWith(prefix + ":") && !tag.equals(template.toString()));
    assertThat(
            meters
                .get(MicrometerFenceListener.ACQUIRE)
                .tags("fence", template.toString(), "holder", "upload")
                .timer()
                .count())
        .as("every value's acquire counts in the template's one series")
        .isEqualTo(VALUES + 1L);
    assertThat(
            meters
                .get(MicrometerFenceListener.BUSY)
                .tags("fence", template.toString(), "holder", "upload")
                .counter()
                .count())
        .isEqualTo(1.0);
  }

  @Test
  void theHolderTagIsTheGivenLabelWithoutItsInstancePart() {
    assertThat(FenceTags.holder("upload@web-3:4711")).isEqualTo("upload");
    assertThat(FenceTags.holder(HolderLabel.instance())).isEqualTo(FenceTags.NONE);
    assertThat(FenceTags.holder(null)).isEqualTo(FenceTags.NONE);
    assertThat(FenceTags.holder("pid-42")).isEqualTo("pid-42");
  }

  private Set<String> values(String tag) {
    return meters.getMeters().stream()
        .map(Meter::getId)
        .filter(id -> id.getName().startsWith("writer.fence.") && id.getTag(tag) != null)
        .map(id -> id.getTag(tag))
        .collect(Collectors.toCollection(TreeSet::new));
  }
}
