package dev.writerfence.spring.boot;

import dev.writerfence.WriterFence;
import dev.writerfence.spring.actuate.WriterFenceEndpoint;
import dev.writerfence.spring.actuate.WriterFenceEndpointWebExtension;
import dev.writerfence.spring.actuate.WriterFenceHealthCheck;
import dev.writerfence.spring.actuate.WriterFenceHealthIndicator;
import dev.writerfence.store.lease.PgLeaseStore;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code writerfence} actuator endpoint and the {@code writerFence} health contributor. */
@AutoConfiguration(after = WriterFenceAutoConfiguration.class)
@ConditionalOnBean(WriterFence.class)
public class WriterFenceActuatorAutoConfiguration {

  /** {@code /actuator/writerfence}: the fence rows. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(Endpoint.class)
  static class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(WriterFenceEndpoint.class)
    WriterFenceEndpoint writerFenceEndpoint(WriterFence fence) {
      return new WriterFenceEndpoint(fence);
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(WriterFenceEndpoint.class)
    WriterFenceEndpointWebExtension writerFenceEndpointWebExtension(WriterFenceEndpoint endpoint) {
      return new WriterFenceEndpointWebExtension(endpoint);
    }
  }

  /**
   * {@code /actuator/health/writerFence}: database reachable, schema present at its version (and,
   * for {@code backend=advisory}, the function its fencing tokens come from).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(AbstractHealthIndicator.class)
  @ConditionalOnBean(WriterFenceDataSource.class)
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "writerFenceHealthIndicator")
    @ConditionalOnEnabledHealthIndicator("writerfence")
    WriterFenceHealthIndicator writerFenceHealthIndicator(
        WriterFenceDataSource dataSource, WriterFenceProperties properties) {
      return new WriterFenceHealthIndicator(healthCheck(dataSource, properties));
    }
  }

  /**
   * The health check every Spring Boot line's indicator adapts.
   *
   * @param dataSource the fence's connections
   * @param properties {@code writer-fence.*}: schema, query timeout, backend
   * @return the check
   */
  public static WriterFenceHealthCheck healthCheck(
      WriterFenceDataSource dataSource, WriterFenceProperties properties) {
    return new WriterFenceHealthCheck(
        dataSource.dataSource(),
        properties.getSchema().getName(),
        PgLeaseStore.queryTimeoutSeconds(properties.getQueryTimeout()),
        properties.getBackend());
  }
}
