package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * The fence observes its acquires and holds in the application's {@link ObservationRegistry} (the
 * one Spring Boot builds when Micrometer's observation API is on the class path, with Micrometer
 * Tracing's handlers when tracing is configured). Off with {@code
 * writer-fence.observations.enabled=false}; Spring Boot's own {@code
 * management.observations.enable.writer.fence=false} turns the observations into no-ops instead.
 */
@AutoConfiguration(before = WriterFenceAutoConfiguration.class)
@ConditionalOnClass({WriterFence.class, ObservationRegistry.class})
@ConditionalOnProperty(
    prefix = "writer-fence",
    name = {"enabled", "observations.enabled"},
    havingValue = "true",
    matchIfMissing = true)
public class WriterFenceObservationAutoConfiguration {

  /** Made by Spring. */
  public WriterFenceObservationAutoConfiguration() {}

  /**
   * @param registry the application's registry, if it has one
   * @return what gives it to the starter's fence
   */
  @Bean
  @ConditionalOnMissingBean
  WriterFenceObservations writerFenceObservations(ObjectProvider<ObservationRegistry> registry) {
    return new WriterFenceObservations(registry::getIfUnique);
  }
}
