package dev.writerfence.spring.boot;

import dev.writerfence.spring.metrics.MicrometerFenceListener;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/** Micrometer meters for the fence's events, when Micrometer is on the class path. */
@AutoConfiguration(before = WriterFenceAutoConfiguration.class)
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBooleanProperty(name = "writer-fence.enabled", matchIfMissing = true)
public class WriterFenceMetricsAutoConfiguration {

  /** The meters, registered in the application's MeterRegistry on the first event. */
  @Bean
  @ConditionalOnMissingBean
  MicrometerFenceListener writerFenceMetrics(
      ObjectProvider<MeterRegistry> registry, WriterFenceProperties properties) {
    return new MicrometerFenceListener(
        registry::getIfUnique, WriterFenceAutoConfiguration.defaultHolderLabel(properties));
  }
}
