package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import dev.writerfence.internal.weaving.FencedCalls;
import dev.writerfence.spring.metrics.FenceMetersAtStartUp;
import dev.writerfence.spring.metrics.FenceQueueGauges;
import dev.writerfence.spring.metrics.FenceWakeUpGauge;
import dev.writerfence.spring.metrics.MicrometerFenceListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Micrometer meters for the fence's events and the queue gauge of each fence name, when Micrometer
 * is on the class path; the series of fence names that {@code @WriterFenced} methods spell out are
 * registered at start-up.
 */
@AutoConfiguration(before = WriterFenceAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "writer-fence.enabled", matchIfMissing = true)
public class WriterFenceMetricsAutoConfiguration {

  /** The meters, in the application's MeterRegistry. */
  @Bean
  @ConditionalOnMissingBean
  MicrometerFenceListener writerFenceMetrics(
      ObjectProvider<MeterRegistry> registry,
      WriterFenceProperties properties,
      ObjectProvider<FenceQueueGauges> queue) {
    return new MicrometerFenceListener(
        registry::getIfUnique,
        WriterFenceAutoConfiguration.defaultHolderLabel(properties),
        queue.getIfUnique());
  }

  /**
   * The queue gauges, reading the queue of the application's fence (its bean, the starter's or the
   * application's own) when a gauge is read, at most every few seconds per fence name.
   */
  @Bean
  @ConditionalOnMissingBean
  FenceQueueGauges writerFenceQueueGauges(
      ObjectProvider<MeterRegistry> registry, ObjectProvider<WriterFence> fence) {
    return new FenceQueueGauges(
        registry::getIfUnique,
        () -> {
          WriterFence f = fence.getIfUnique();
          return f == null ? null : FencedCalls.store(f);
        });
  }

  /** The gauge of how queued writers are woken: notified (1) or polled (0). */
  @Bean
  @ConditionalOnMissingBean
  FenceWakeUpGauge writerFenceWakeUpGauge(ObjectProvider<WriterFence> fence) {
    return new FenceWakeUpGauge(fence::getIfUnique);
  }

  /** Registers the known series once all singletons exist. */
  @Bean
  static FenceMetersAtStartUp writerFenceMetersAtStartUp(
      ConfigurableListableBeanFactory beanFactory, ObjectProvider<MicrometerFenceListener> meters) {
    return new FenceMetersAtStartUp(beanFactory, meters);
  }
}
